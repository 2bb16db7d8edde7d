from __future__ import annotations

import base64
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from agent_tui.tools.asks import PermissionDecision
from agent_tui.tools.read import READ
from agent_tui.tools.scope import ToolScope
from agent_tui.tools.tool import ToolOutcome
from agent_tui.vocab.kinds import Effect, PermissionReply
from agent_tui.vocab.permission_rule import PermissionRule
from tests.fakes.asks import RecordingAsker

from .conftest import error_message, gate_for, invoke_tool, output_text

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + b"\x00" * 40


async def read(scope: ToolScope, **params: object) -> ToolOutcome:
    return await invoke_tool(READ, scope, **params)


text_of, error_of = output_text, error_message


async def test_small_file_numbered_lines(workdir: Path, scope: ToolScope) -> None:
    (workdir / "a.txt").write_text("one\ntwo\r\nthree")
    out = await read(scope, path="a.txt")
    lines = text_of(out).splitlines()
    assert lines[:3] == ["     1\tone", "     2\ttwo", "     3\tthree"]
    assert "End of file" in lines[3]
    assert out.output is not None and out.output.data["next_offset"] is None


async def test_a_one_line_file_says_one_line(workdir: Path, scope: ToolScope) -> None:
    (workdir / "a.txt").write_text("hello world\n")
    assert text_of(await read(scope, path="a.txt")).splitlines()[-1] == (
        "(End of file. Showed lines 1-1; the file has 1 line.)"
    )


async def test_paging_reports_next_offset(workdir: Path, scope: ToolScope) -> None:
    (workdir / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 5001)))
    first = await read(scope, path="big.txt")
    assert first.output is not None
    assert first.output.data["lines"] == 2000 and first.output.data["next_offset"] == 2001
    assert "offset=2001" in first.output.text
    second = await read(scope, path="big.txt", offset=2001, limit=5)
    assert text_of(second).splitlines()[0] == "  2001\tline 2001"
    assert second.output is not None and second.output.data["next_offset"] == 2006
    last = await read(scope, path="big.txt", offset=4999)
    assert text_of(last).splitlines()[:2] == ["  4999\tline 4999", "  5000\tline 5000"]
    assert "the file has 5000 lines" in text_of(last)
    past = await read(scope, path="big.txt", offset=6000)
    assert "past the end" in error_of(past) and "5000 lines" in error_of(past)
    clamped = await read(scope, path="big.txt", limit=10_000)
    assert clamped.output is not None and clamped.output.data["lines"] == 2000


async def test_page_is_capped_at_50_kib(workdir: Path, scope: ToolScope) -> None:
    (workdir / "wide.txt").write_text(("x" * 1000 + "\n") * 200)
    out = await read(scope, path="wide.txt")
    assert out.output is not None
    assert len(out.output.text.encode()) <= 50 * 1024 + 200
    assert out.output.data["next_offset"] == out.output.data["lines"] + 1
    assert "50 KiB page limit" in out.output.text


async def test_long_lines_are_cut_with_marker(workdir: Path, scope: ToolScope) -> None:
    (workdir / "long.txt").write_text("a" * 5000 + "\nshort\n" + "é" * 3000 + "\n")
    lines = text_of(await read(scope, path="long.txt")).splitlines()
    assert lines[0] == "     1\t" + "a" * 2000 + " … [line truncated: 3000 more bytes]"
    assert lines[1] == "     2\tshort"
    assert lines[2].startswith("     3\t" + "é" * 2000 + " … [line truncated: 2000 more bytes]")


async def test_deep_page_of_a_2gb_sparse_file(workdir: Path, scope: ToolScope) -> None:
    path = workdir / "huge.log"
    with open(path, "wb") as handle:
        handle.write(b"".join(b"head %04d\n" % i for i in range(1, 2001)))
        handle.seek(2 * 1024**3)
        handle.write(b"\n" + b"".join(b"tail %d\n" % i for i in range(1, 4001)))
    # Lines 1-2000 are text, line 2001 is the 2 GiB hole (one NUL line), then "tail" lines.
    deep = await read(scope, path="huge.log", offset=5002, limit=3)
    assert text_of(deep).splitlines()[:3] == ["  5002\ttail 3001", "  5003\ttail 3002", "  5004\ttail 3003"]
    hole = await read(scope, path="huge.log", offset=2000, limit=2)
    lines = text_of(hole).splitlines()
    assert lines[0] == "  2000\thead 2000"
    assert lines[1].startswith("  2001\t") and "line truncated: 2147461648 more bytes" in lines[1]
    end = await read(scope, path="huge.log", offset=6001)
    assert "the file has 6001 lines" in text_of(end)


async def test_binary_files_are_refused_with_size_and_type(workdir: Path, scope: ToolScope) -> None:
    (workdir / "prog").write_bytes(b"\x7fELF" + b"\x00" * 100)
    assert (
        error_of(await read(scope, path="prog"))
        == "Cannot read 'prog': it is a binary file (ELF executable, 104 bytes)."
    )
    (workdir / "latin1.txt").write_bytes("caf\xe9 au lait\n".encode("latin-1"))
    assert "binary file" in error_of(await read(scope, path="latin1.txt"))
    (workdir / "ctrl").write_bytes(bytes(range(1, 32)) * 10)
    assert "unknown binary data" in error_of(await read(scope, path="ctrl"))


async def test_images_need_vision(workdir: Path, make_scope) -> None:
    (workdir / "pic.png").write_bytes(PNG)
    blind = await read(make_scope(), path="pic.png")
    assert "cannot view images" in error_of(blind) and "image/png" in error_of(blind)
    seeing = await read(make_scope(supports_vision=True), path="pic.png")
    assert seeing.output is not None
    assert seeing.output.images == [{"path": "pic.png", "mime": "image/png", "data": base64.b64encode(PNG).decode()}]
    (workdir / "anim.webp").write_bytes(b"RIFF\x10\x00\x00\x00WEBPVP8 " + b"\x00" * 8)
    webp = await read(make_scope(supports_vision=True), path="anim.webp")
    assert webp.output is not None and webp.output.images[0]["mime"] == "image/webp"
    with open(workdir / "huge.jpg", "wb") as handle:
        handle.write(b"\xff\xd8\xff\xe0")
        handle.truncate(10_000_000)
    assert error_of(await read(make_scope(supports_vision=True), path="huge.jpg")) == (
        "Cannot show the image 'huge.jpg' (image/jpeg) to the model: it is 9.5 MiB (10000000 bytes), over the "
        "3.6 MiB (3750000 bytes) limit per image. Make a smaller copy (e.g. `convert IN -resize 2000x2000 OUT`) "
        "and read that."
    )


async def test_an_image_a_provider_would_refuse_for_its_size_in_pixels_is_refused_with_the_cap(
    workdir: Path, make_scope
) -> None:
    ihdr = b"\x00\x00\x00\rIHDR" + (12_000).to_bytes(4, "big") + (300).to_bytes(4, "big")
    (workdir / "banner.png").write_bytes(b"\x89PNG\r\n\x1a\n" + ihdr + b"\x08\x06\x00\x00\x00" + b"\x00" * 20)
    assert error_of(await read(make_scope(supports_vision=True), path="banner.png")) == (
        "Cannot show the image 'banner.png' (image/png) to the model: its longest side is 12000 px, over the 8000 px "
        "limit. Make a smaller copy (e.g. `convert IN -resize 2000x2000 OUT`) and read that."
    )


async def test_directory_listing_dirs_first_and_paged(workdir: Path, scope: ToolScope) -> None:
    for name in ("b.txt", "A.txt", "c.txt"):
        (workdir / name).write_text("x")
    for name in ("zdir", "adir"):
        (workdir / name).mkdir()
    out = await read(scope, path=".")
    assert text_of(out).splitlines()[:-1] == [".git/", "adir/", "zdir/", "A.txt", "b.txt", "c.txt"]
    page = await read(scope, path=".", offset=2, limit=2)
    assert text_of(page).splitlines()[:2] == ["adir/", "zdir/"]
    assert page.output is not None and page.output.data["next_offset"] == 4
    assert "offset=4" in text_of(page)


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/etc/passwd", "Absolute paths are not allowed: '/etc/passwd'"),
        ("~/x", "Absolute paths are not allowed"),
        ("../outside.txt", "escapes the session location through '..'"),
        ("sub/../../outside.txt", "escapes the session location through '..'"),
        ("missing.txt", "File not found: 'missing.txt'"),
        ("", "The path is empty"),
        ("a\x00b", "contains a NUL character"),
    ],
)
async def test_path_refusals(workdir: Path, scope: ToolScope, path: str, message: str) -> None:
    (workdir.parent / "outside.txt").write_text("secret")
    assert message in error_of(await read(scope, path=path))


async def test_symlinks(workdir: Path, scope: ToolScope) -> None:
    (workdir.parent / "outside.txt").write_text("secret")
    (workdir / "inside.txt").write_text("fine\n")
    (workdir / "escape").symlink_to(workdir.parent / "outside.txt")
    (workdir / "ok").symlink_to("inside.txt")
    (workdir / "dangling").symlink_to("nowhere.txt")
    (workdir / "dirlink").symlink_to(workdir.parent)
    assert "symlink" in error_of(await read(scope, path="escape")) and "outside the session location" in error_of(
        await read(scope, path="escape")
    )
    assert "outside the session location" in error_of(await read(scope, path="dirlink/outside.txt"))
    assert text_of(await read(scope, path="ok")).startswith("     1\tfine")
    assert (
        error_of(await read(scope, path="dangling"))
        == "The path 'dangling' is a dangling symlink to 'nowhere.txt', which does not exist."
    )


async def test_fifo_is_refused_without_hanging(workdir: Path, scope: ToolScope) -> None:
    os.mkfifo(workdir / "pipe")
    assert (
        error_of(await read(scope, path="pipe")) == "Cannot read 'pipe': it is a named pipe (FIFO), not a regular file."
    )


def test_unreadable_file_is_refused(tmp_path: Path) -> None:
    """Runs in a child process as an unprivileged user (root can read anything)."""
    base = Path(tempfile.mkdtemp(prefix="agent-read-"))
    try:
        base.chmod(0o755)
        (base / "secret.txt").write_text("x")
        (base / "secret.txt").chmod(0o000)
        code = (
            "import asyncio, os, sys\n"
            "from pathlib import Path\n"
            "from agent_tui.tools.scope import ToolScope\n"
            "from agent_tui.tools.permissions import AllowAll\n"
            "from agent_tui.tools.read import READ\n"
            "from agent_tui.tools.registry import ToolRegistry\n"
            "reg = ToolRegistry(Path(sys.argv[1])); reg.register(READ)\n"
            "scope = ToolScope(location=Path(sys.argv[1]), project_root=Path(sys.argv[1]), gate=AllowAll(), spill_dir=Path(sys.argv[1]))\n"
            "asyncio.run(reg.invoke('read', {'path': '.'}, scope))  # import everything while privileged\n"
            "if os.getuid() == 0:\n"
            "    os.setgid(65534); os.setuid(65534)\n"
            "out = asyncio.run(reg.invoke('read', {'path': 'secret.txt'}, scope))\n"
            "print(out.error.message if out.error else 'READ OK')\n"
        )
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
        result = subprocess.run(
            [sys.executable, "-c", code, str(base)], capture_output=True, text=True, env=env, timeout=60
        )
        assert result.stdout.strip() == "Permission denied: cannot read 'secret.txt'.", result.stderr
    finally:
        (base / "secret.txt").chmod(0o644)
        (base / "secret.txt").unlink()
        base.rmdir()


async def test_read_permission_rules_apply(workdir: Path, make_scope) -> None:
    (workdir / ".env").write_text("KEY=1\n")
    (workdir / "a.txt").write_text("a\n")
    asker = RecordingAsker(PermissionDecision(reply=PermissionReply.REJECT, message="no"))
    rules = [PermissionRule(action="read", pattern="*.env", effect=Effect.DENY)]
    scope = make_scope(gate=gate_for(workdir, asker, rules))
    denied = await read(scope, path=".env")
    assert denied.error is not None and denied.error.type == "permission.denied"
    assert text_of(await read(scope, path="a.txt")).startswith("     1\ta")
    assert asker.requests == []


async def test_long_line_followed_by_more_lines_in_one_buffer(workdir: Path, scope: ToolScope) -> None:
    (workdir / "mixed.txt").write_text("b" * 10_000 + "\nnext\n" + "c" * 100_000 + "\nlast\n")
    lines = text_of(await read(scope, path="mixed.txt")).splitlines()
    assert lines[0] == "     1\t" + "b" * 2000 + " … [line truncated: 8000 more bytes]"
    assert lines[1] == "     2\tnext"
    assert lines[2] == "     3\t" + "c" * 2000 + " … [line truncated: 98000 more bytes]"
    assert lines[3] == "     4\tlast"
