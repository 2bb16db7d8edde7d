"""``server_environment`` as a property: nothing but the locale, the named variables and the table is added."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agent_tui.tools.mcp.server_env import LOCALE, server_environment
from agent_tui.vocab.mcp_server import McpServerConfig

NAMES = st.text(st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZ_"), min_size=1, max_size=12)


@given(
    environ=st.dictionaries(NAMES, st.text(max_size=8)),
    named=st.lists(NAMES, max_size=4),
    table=st.dictionaries(NAMES, st.text(max_size=8), max_size=3),
)
def test_only_the_locale_named_variables_and_the_table_are_added(environ, named, table) -> None:
    config = McpServerConfig(command=["server"], env_vars=named, env=table)
    added = server_environment(config, environ)
    assert added.keys() <= {*LOCALE, *named, *table}
    assert all(added[name] == value for name, value in table.items())
    assert all(added[name] == environ[name] for name in added.keys() - table.keys())
