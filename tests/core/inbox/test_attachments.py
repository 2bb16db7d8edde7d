"""@mentions and --file paths become durable prompt parts with the text the model sees."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from agent_tui.core.inbox.attachments import (
    AttachmentError,
    AttachPolicy,
    NeedsApproval,
    build_prompt,
    mentions,
)
from agent_tui.core.log import events as ev
from agent_tui.vocab.kinds import Effect
from agent_tui.vocab.permission_rule import PermissionRule

# A 3x2 PNG (IHDR says so; imagesize reads only the header).
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAYAAACddGYaAAAAEklEQVR4nGP4z8DAwMDAwMDAAAAI/AH/3QH2mQAAAABJRU5ErkJggg=="
)


def test_mentions_are_found_once_each_in_order() -> None:
    text = 'see @src/a.py, and @"my notes.md" then @src/a.py again; mail me@example.com \\@literal'
    assert mentions(text) == ["src/a.py", "my notes.md"]


async def test_a_backslashed_at_is_sent_as_a_plain_at(workdir: Path) -> None:
    assert await build_prompt("mail me \\@home", workdir) == [ev.TextPart(text="mail me @home")]


async def test_a_file_becomes_its_numbered_text(workdir: Path) -> None:
    (workdir / "a.py").write_text("print(1)\nprint(2)\n")
    parts = await build_prompt("look at @a.py", workdir)
    assert parts[0] == ev.TextPart(text="look at @a.py")
    file = parts[1]
    assert isinstance(file, ev.FilePart) and file.path == "a.py"
    assert "     1\tprint(1)" in file.text and "End of file" in file.text


async def test_a_long_file_is_cut_like_read_and_says_so(workdir: Path) -> None:
    (workdir / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 3001)))
    [_, file] = await build_prompt("@big.txt", workdir)
    assert "line 2000" in file.text and "line 2001" not in file.text
    assert "More follows: read again with offset=2001" in file.text


async def test_a_folder_becomes_its_listing_and_files_come_after_mentions(workdir: Path) -> None:
    (workdir / "pkg").mkdir()
    (workdir / "pkg" / "mod.py").write_text("x = 1\n")
    (workdir / "pkg" / "sub").mkdir()
    (workdir / "notes.md").write_text("hi\n")
    parts = await build_prompt("@pkg", workdir, files=["notes.md"])
    assert [type(p).__name__ for p in parts] == ["TextPart", "FilePart", "FilePart"]
    assert parts[1].mime == "inode/directory" and parts[1].text.splitlines()[:2] == ["sub/", "mod.py"]
    assert parts[2].path == "notes.md"


async def test_an_image_is_an_image_part_with_its_facts_when_the_model_sees_images(workdir: Path) -> None:
    (workdir / "shot.png").write_bytes(PNG)
    [_, image] = await build_prompt("what is @shot.png", workdir, vision=lambda: True)
    assert isinstance(image, ev.ImagePart)
    assert (image.mime, image.size, image.width, image.height) == ("image/png", len(PNG), 3, 2)
    assert base64.b64decode(image.data) == PNG


@pytest.mark.parametrize(
    ("name", "content", "vision", "says"),
    [
        ("missing.py", None, False, "@missing.py: no such file or folder"),
        ("blob.bin", b"\x7fELF\x00\x00\x01", False, "@blob.bin: it is a binary file (ELF executable"),
        ("shot.png", PNG, False, "the current model cannot view images"),
    ],
)
async def test_bad_mentions_are_one_line_naming_the_path(
    workdir: Path, name: str, content: bytes | None, vision: bool, says: str
) -> None:
    if content is not None:
        (workdir / name).write_bytes(content)
    with pytest.raises(AttachmentError) as caught:
        await build_prompt(f"@{name}", workdir, vision=lambda: vision)
    assert says in str(caught.value) and "\n" not in str(caught.value)


async def test_outside_the_location_follows_external_directory(workdir: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "x.txt").write_text("far away\n")
    raw = str(outside / "x.txt")
    with pytest.raises(NeedsApproval) as asked:
        await build_prompt(f"@{raw}", workdir)
    assert asked.value.directory == outside.as_posix()
    approved = await build_prompt(f"@{raw}", workdir, policy=AttachPolicy(approved=frozenset({outside.as_posix()})))
    assert approved[1].path == raw and "far away" in approved[1].text
    allow = PermissionRule(action="external_directory", pattern=f"{outside}/*", effect=Effect.ALLOW)
    assert len(await build_prompt(f"@{raw}", workdir, policy=AttachPolicy(rules=(allow,)))) == 2
    deny = PermissionRule(action="external_directory", pattern="*", effect=Effect.DENY)
    with pytest.raises(AttachmentError, match="denies"):
        await build_prompt(
            f"@{raw}", workdir, policy=AttachPolicy(rules=(deny,), approved=frozenset({outside.as_posix()}))
        )
    with pytest.raises(AttachmentError, match="policy denies"):
        await build_prompt(f"@{raw}", workdir, policy=AttachPolicy(external="deny"))


async def test_a_reference_mention_attaches_from_the_configured_folder_without_asking(
    workdir: Path, tmp_path: Path, agent_home: Path
) -> None:
    from agent_tui.core.inbox.attachments import attach_policy
    from agent_tui.core.settings.config import Settings

    docs = tmp_path / "docs-checkout"
    docs.mkdir()
    (docs / "api.md").write_text("GET /users\n")
    settings = Settings.model_validate({"references": {"docs": {"path": str(docs)}}})
    policy = attach_policy(settings, None, location=workdir, external="deny")
    [_, part] = await build_prompt("see @docs:api.md", workdir, policy=policy)
    assert isinstance(part, ev.FilePart) and part.path == "docs:api.md" and "GET /users" in part.text
    with pytest.raises(AttachmentError, match=r"^@docs:\.\./x: The path '\.\./x' escapes the reference folder docs"):
        await build_prompt("@docs:../x", workdir, policy=policy)
    with pytest.raises(AttachmentError, match="no such file"):  # without the reference: a plain relative path
        await build_prompt("@docs:api.md", workdir)
