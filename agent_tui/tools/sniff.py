"""Is this file text, an image, or other binary? Decided from its first bytes."""

from __future__ import annotations

import codecs
import mimetypes
from dataclasses import dataclass

SNIFF_BYTES = 8192
NONPRINTABLE_SHARE = 0.30
_ALLOWED_CONTROLS = set("\t\n\r\f\b\x1b")

_IMAGES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)

_BINARY_KINDS: tuple[tuple[int, bytes, str], ...] = (
    (0, b"%PDF-", "PDF document"),
    (0, b"PK\x03\x04", "ZIP archive"),
    (0, b"\x1f\x8b", "gzip archive"),
    (0, b"BZh", "bzip2 archive"),
    (0, b"\xfd7zXZ\x00", "xz archive"),
    (0, b"7z\xbc\xaf\x27\x1c", "7-Zip archive"),
    (257, b"ustar", "tar archive"),
    (0, b"\x7fELF", "ELF executable"),
    (0, b"MZ", "Windows executable"),
    (0, b"\xcf\xfa\xed\xfe", "Mach-O executable"),
    (0, b"\xca\xfe\xba\xbe", "Java class or Mach-O universal binary"),
    (0, b"\x00asm", "WebAssembly module"),
    (0, b"SQLite format 3\x00", "SQLite database"),
    (0, b"ID3", "MP3 audio"),
    (0, b"OggS", "Ogg media"),
    (0, b"fLaC", "FLAC audio"),
    (0, b"II*\x00", "TIFF image"),
    (0, b"MM\x00*", "TIFF image"),
    (0, b"\x00\x00\x01\x00", "ICO image"),
    (0, b"BM", "BMP image"),
    (4, b"ftyp", "MP4/QuickTime media"),
)


@dataclass(frozen=True)
class Sniff:
    kind: str
    """``text``, ``image`` or ``binary``."""
    mime: str = ""
    description: str = ""


def image_mime(head: bytes) -> str | None:
    for magic, mime in _IMAGES:
        if head.startswith(magic):
            return mime
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def describe_binary(head: bytes, name: str) -> str:
    for offset, magic, description in _BINARY_KINDS:
        if head[offset : offset + len(magic)] == magic:
            return description
    guessed, _ = mimetypes.guess_type(name)
    return guessed or "unknown binary data"


def looks_like_text(head: bytes) -> bool:
    """UTF-8 without NUL bytes and without a high share of control characters."""
    if b"\x00" in head:
        return False
    try:
        text = codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError:
        return False
    if not text:
        return True
    odd = sum(1 for ch in text if ord(ch) < 32 and ch not in _ALLOWED_CONTROLS or ch == "\x7f")
    return odd / len(text) <= NONPRINTABLE_SHARE


def sniff(head: bytes, name: str) -> Sniff:
    mime = image_mime(head)
    if mime is not None:
        return Sniff("image", mime=mime, description=mime)
    if looks_like_text(head):
        return Sniff("text")
    return Sniff("binary", description=describe_binary(head, name))


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            text = f"{size} bytes" if unit == "bytes" else f"{value:.1f} {unit} ({size} bytes)"
            return text
        value /= 1024
    return f"{size} bytes"
