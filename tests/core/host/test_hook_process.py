"""One hook command as a real process: its stdin, its output, and the ways it can fail to finish."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.host.hook_process import KEEP_CHARS, run_hook_command


async def test_the_hook_reads_its_object_on_stdin_and_both_streams_come_back(tmp_path: Path) -> None:
    done = await run_hook_command("cat; echo oops >&2; exit 3", '{"a": 1}', tmp_path, 10)
    assert (done.code, done.stdout, done.stderr, done.timed_out) == (3, '{"a": 1}', "oops\n", False)


async def test_a_hook_that_ignores_stdin_and_exits_at_once_is_fine(tmp_path: Path) -> None:
    done = await run_hook_command("exit 0", "x" * 1_000_000, tmp_path, 10)
    assert done.code == 0 and done.failed_to_start is None


async def test_long_output_is_cut(tmp_path: Path) -> None:
    done = await run_hook_command(f"head -c {KEEP_CHARS * 2} /dev/zero | tr '\\0' a", "", tmp_path, 10)
    assert done.code == 0 and len(done.stdout) < KEEP_CHARS + 20 and done.stdout.endswith("[… cut]")


async def test_a_hook_that_cannot_start_says_why(tmp_path: Path) -> None:
    done = await run_hook_command("true", "", tmp_path / "gone", 10)
    assert done.code is None and done.failed_to_start and "gone" in done.failed_to_start


async def test_a_timeout_returns_without_the_output(tmp_path: Path) -> None:
    done = await run_hook_command("echo started; exec sleep 300", "", tmp_path, 0.3)
    assert done.timed_out and done.code is None
