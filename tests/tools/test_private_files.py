"""What agent-tui keeps for the user is readable by the user only, whatever the umask."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agent_tui.tools.output_keeper import OutputKeeper
from agent_tui.tools.private_files import open_private, private_dir


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def open_umask():
    """The widest common umask: files 0666, folders 0777 unless the code says otherwise."""
    before = os.umask(0)
    yield
    os.umask(before)


async def test_a_spilled_long_output_is_private(tmp_path: Path, open_umask: None) -> None:
    keeper = OutputKeeper(tmp_path / "data" / "spill" / "call.log", max_lines=10)
    await keeper.feed(b"".join(b"secret %d\n" % i for i in range(100)))
    await keeper.close()
    assert keeper.overflowed
    assert mode(tmp_path / "data" / "spill") == 0o700 and mode(keeper.spill_path) == 0o600


def test_an_existing_wide_folder_and_file_are_narrowed(tmp_path: Path, open_umask: None) -> None:
    folder = tmp_path / "spill"
    folder.mkdir(mode=0o755)
    old = folder / "old.log"
    old.write_bytes(b"x")
    old.chmod(0o644)
    with open_private(old) as out:
        out.write(b"y")
    assert mode(folder) == 0o700 and mode(old) == 0o600 and old.read_bytes() == b"y"
    assert private_dir(tmp_path / "a" / "b") == tmp_path / "a" / "b" and mode(tmp_path / "a" / "b") == 0o700
