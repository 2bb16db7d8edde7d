"""Skill folders on disk, as a user or a project would write them."""

from __future__ import annotations

from pathlib import Path


def write_skill(
    root: Path,
    name: str,
    description: str = "",
    body: str = "",
    files: dict[str, str] | None = None,
    front: str | None = None,
) -> Path:
    """``root/name/SKILL.md`` (``front`` replaces the generated front matter) plus ``files``; the folder."""
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    meta = front if front is not None else f"name: {name}\ndescription: {description or f'The {name} skill.'}\n"
    (folder / "SKILL.md").write_text(f"---\n{meta}---\n{body or f'# {name}'}\n", encoding="utf-8")
    for relative, text in (files or {}).items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text, encoding="utf-8")
    return folder
