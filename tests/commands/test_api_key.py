"""``--api-key`` leaves ``ps`` at once (with a warning saying how to avoid it); ``--api-key-file``
never puts the key there. The real entry point in a subprocess, the fake provider holding the
stream so the process is alive while its command line is read."""

from __future__ import annotations

import asyncio
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from agent_tui.api_key_arg import _key_spans, given_keys
from agent_tui.testing.fake_provider import FakeProvider, Turn

from .test_run_cmd import Cli, cli  # noqa: F401 (fixture)

SECRET = "sk-SECRET-0f9e8d7c6b5a"


def cmdline(pid: int) -> bytes:
    return Path(f"/proc/{pid}/cmdline").read_bytes()


async def run_bare(cli: Cli, *args: str) -> tuple[int, str, str]:  # noqa: F811
    """``run`` with the model flags but no key flag: ``args`` give the key, or none."""
    proc = await cli.start("run", "--model", "openai/fake-model", "--api-base", cli.fake.openai_base, *args)
    out, err = await asyncio.wait_for(proc.communicate(b""), 60)
    return proc.returncode or 0, out.decode(), err.decode()


async def held_run(cli: Cli, fake: FakeProvider, *key_args: str) -> tuple[asyncio.subprocess.Process, int]:  # noqa: F811
    fake.add(Turn(text="answered", hold=True))
    proc = await cli.start("run", "--model", "openai/fake-model", "--api-base", fake.openai_base, *key_args, "hello")
    await fake.wait_for("held", timeout=60)
    return proc, await cli.mode.agent_pid(proc)


async def test_the_key_given_by_flag_is_not_in_the_command_line_while_it_runs(cli: Cli, fake: FakeProvider) -> None:  # noqa: F811
    proc, agent = await held_run(cli, fake, "--api-key", SECRET)
    try:
        for pid in {proc.pid, agent}:
            shown = cmdline(pid)
            assert SECRET.encode() not in shown, shown
        assert b"--api-key" in cmdline(proc.pid)  # the flag stays, only its value is gone
        assert fake.requests[-1].headers.get("Authorization") == f"Bearer {SECRET}"  # and it was still used
    finally:
        fake.release()
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    assert out.decode().strip() == "answered"
    warnings = [line for line in err.decode().splitlines() if "--api-key" in line]
    assert len(warnings) == 1 and "AGENT_TUI_API_KEY" in warnings[0] and "--api-key-file" in warnings[0], err
    await cli.mode.verify()


async def test_the_key_given_as_flag_equals_value_is_scrubbed_too(cli: Cli, fake: FakeProvider) -> None:  # noqa: F811
    proc, agent = await held_run(cli, fake, f"--api-key={SECRET}")
    try:
        assert SECRET.encode() not in cmdline(proc.pid)
        assert f"--api-key={'x' * len(SECRET)}".encode() in cmdline(proc.pid)
    finally:
        fake.release()
    await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0


async def test_a_key_file_is_read_and_nothing_is_warned(cli: Cli, fake: FakeProvider, tmp_path: Path) -> None:  # noqa: F811
    key_file = tmp_path / "key"
    key_file.write_text(f"  {SECRET}\n")
    key_file.chmod(0o600)
    fake.add(Turn(text="answered"))
    code, out, err = await run_bare(cli, "--api-key-file", str(key_file), "hello")
    assert code == 0, err
    assert fake.requests[-1].headers.get("Authorization") == f"Bearer {SECRET}"
    assert "warning" not in err


async def test_a_missing_or_empty_key_file_or_both_flags_is_one_clear_line(
    cli: Cli,
    fake: FakeProvider,  # noqa: F811
    tmp_path: Path,
) -> None:
    empty = tmp_path / "empty"
    empty.write_text("\n")
    cases = [
        (["--api-key-file", str(tmp_path / "nope")], "cannot read --api-key-file"),
        (["--api-key-file", str(empty)], "is empty"),
        (["--api-key", SECRET, "--api-key-file", str(empty)], "not both"),
    ]
    for args, expected in cases:
        code, _, err = await run_bare(cli, *args, "hello")
        assert code == 2, err
        assert expected in err, err
    assert fake.requests == []


@given(
    st.lists(
        st.text(alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=8),
        max_size=8,
    ),
    st.text(alphabet="abcxyz-", min_size=1, max_size=6),
)
def test_only_the_keys_own_bytes_are_scrubbed(words: list[str], key: str) -> None:
    argv = ["agent-tui", *words, "--api-key", key, f"--api-key={key}"]
    assert given_keys(argv[1:])[-2:] == [key, key]
    area = b"\0".join(word.encode() for word in argv) + b"\0"
    spans = _key_spans(area, {key.encode()})
    scrubbed = bytearray(area)
    for offset, length in spans:
        assert bytes(area[offset : offset + length]) == key.encode()
        scrubbed[offset : offset + length] = b"x" * length
    after = bytes(scrubbed).split(b"\0")
    assert after[-3] == b"x" * len(key) and after[-2] == b"--api-key=" + b"x" * len(key)
    assert all(
        word.encode() == seen or word.encode() == key.encode() or word.endswith(key)
        for word, seen in zip(argv, after, strict=False)
    )  # nothing but key values changed
