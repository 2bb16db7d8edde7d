"""opencode's real database (tests/data/foreign/opencode/opencode.db): where it is, its sessions, one read out."""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from agent_tui.core.transfer.foreign import locate, opencode_db
from agent_tui.core.transfer.foreign.draft import UnreadableSession
from tests.fakes.foreign_homes import OPENCODE_DATABASE, OPENCODE_EXPORT, OPENCODE_SESSION_ID, opencode_home


def test_a_session_read_out_of_the_database_is_what_opencode_export_wrote() -> None:
    exported = json.loads(OPENCODE_EXPORT.read_text(encoding="utf-8"))
    ours = json.loads(opencode_db.export(OPENCODE_DATABASE, OPENCODE_SESSION_ID))
    assert ours["messages"] == exported["messages"]
    assert ours["info"] == {key: exported["info"][key] for key in ours["info"]}
    assert set(ours["info"]) >= {"id", "directory", "title", "version", "time"}


def test_sessions_by_directory_all_and_id_under_home_xdg_or_opencode_db(tmp_path: Path) -> None:
    home, here = tmp_path / "home", Path("/work/project-a")
    database = opencode_home(home, here)
    (found,) = locate.sessions("opencode", here, home, {})
    assert found == database / OPENCODE_SESSION_ID and opencode_db.session_of(found) == (database, OPENCODE_SESSION_ID)
    assert locate.sessions("opencode", Path("/work/project-b"), home, {}) == []
    assert locate.sessions("opencode", None, home, {}) == [found]
    assert locate.by_id("opencode", OPENCODE_SESSION_ID, home, {}) == found
    with pytest.raises(UnreadableSession, match="no opencode session ses_nope under"):
        locate.by_id("opencode", "ses_nope", home, {})
    assert json.loads(locate.load("opencode", found))["info"]["directory"] == str(here)

    data = tmp_path / "xdg"
    (data / "opencode").mkdir(parents=True)
    shutil.copy(database, data / "opencode" / "opencode-beta.db")  # a beta build's database
    environ = {"XDG_DATA_HOME": str(data)}
    assert [p.parent.name for p in locate.sessions("opencode", here, tmp_path / "empty", environ)] == [
        "opencode-beta.db"
    ]
    assert locate.sessions("opencode", here, home, {"OPENCODE_DB": str(data / "opencode" / "opencode-beta.db")}) == [
        data / "opencode" / "opencode-beta.db" / OPENCODE_SESSION_ID
    ]
    assert len(locate.sessions("opencode", here, home, {"OPENCODE_DB": "opencode.db"})) == 1  # in the data dir
    assert locate.sessions("opencode", here, home, {"OPENCODE_DB": str(tmp_path / "none.db")}) == []


def test_a_subagents_session_is_part_of_its_parent_and_not_listed(tmp_path: Path) -> None:
    database = opencode_home(tmp_path, None)
    with closing(sqlite3.connect(database)) as conn, conn:
        conn.execute(
            "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created,"
            " time_updated) SELECT 'ses_child', project_id, id, slug, directory, 'child', version, time_created,"
            " time_updated + 1 FROM session"
        )
    assert [p.name for p in opencode_db.sessions(database, None)] == [OPENCODE_SESSION_ID]


def test_a_session_is_described_by_its_title_update_time_and_size(tmp_path: Path) -> None:
    found = locate.describe("opencode", OPENCODE_DATABASE / OPENCODE_SESSION_ID)
    assert (found.label, found.title) == ("opencode", "Edit main.py to print hello, world")
    assert found.modified_ms == 1796579103232 and 10_000 < found.size < OPENCODE_DATABASE.stat().st_size
    exported = locate.describe("opencode", OPENCODE_EXPORT)  # an `opencode export` file: read whole
    assert exported.title == found.title and exported.size == OPENCODE_EXPORT.stat().st_size
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    assert locate.describe("opencode", broken).title == "(unreadable)"


def test_a_database_opencode_did_not_write_or_a_bad_row_is_refused_by_name(tmp_path: Path) -> None:
    other = tmp_path / "opencode.db"
    with closing(sqlite3.connect(other)) as conn:
        conn.execute("CREATE TABLE session (id TEXT)")
    with pytest.raises(UnreadableSession, match="not an opencode database this build reads"):
        opencode_db.sessions(other, None)
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not sqlite at all" * 100)
    with pytest.raises(UnreadableSession, match="cannot read opencode's database"):
        opencode_db.export(garbage, OPENCODE_SESSION_ID)
    copy = opencode_home(tmp_path / "home", None)
    with pytest.raises(UnreadableSession, match="no opencode session ses_nope in"):
        opencode_db.export(copy, "ses_nope")
    with closing(sqlite3.connect(copy)) as conn, conn:
        (part,) = conn.execute("SELECT id FROM part ORDER BY id LIMIT 1").fetchone()
        conn.execute("UPDATE part SET data = '[1' WHERE id = ?", (part,))
    with pytest.raises(UnreadableSession, match=rf"part {part} is not a JSON object; nothing was imported"):
        opencode_db.export(copy, OPENCODE_SESSION_ID)
