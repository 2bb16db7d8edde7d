"""Which images a tool may hand to the model: one rule for ``read`` and MCP results.

Providers refuse a whole request over one bad image (Anthropic: more than 5 MB
of base64, more than 8000 px a side, or bytes that are not the declared kind),
and the log would send that image again on every later step. So an image goes
out only as PNG, JPEG, GIF or WebP, checked from its bytes, within both caps.

Over a cap it is refused, not downscaled: downscaling needs an image library
(Pillow) decoding untrusted files inside the agent process, for images that
are rare in practice. The refusal names the size and the cap, so the model can
shrink the file with its own tools (``convert -resize``, ``sips -Z``) and read
the result.
"""

from __future__ import annotations

import io

from agent_tui.tools.sniff import human_size, image_mime

IMAGE_MAX_BYTES = 3_750_000
"""Raw bytes; base64 makes it 5,000,000 characters, Anthropic's limit per image."""

IMAGE_MAX_SIDE = 8000
"""Pixels; Anthropic refuses an image with a longer side."""


class ImageRefused(ValueError):
    """Why the image cannot go to the model, as a phrase: ``"it is 5.0 MiB, over the 3.6 MiB limit"``."""


def check_size(size: int) -> None:
    """Before reading: refuse what is too many bytes."""
    if size > IMAGE_MAX_BYTES:
        raise ImageRefused(f"it is {human_size(size)}, over the {human_size(IMAGE_MAX_BYTES)} limit per image")


def checked_mime(data: bytes) -> str:
    """The image's MIME type from its bytes; raises :class:`ImageRefused` for any other kind or size."""
    check_size(len(data))
    mime = image_mime(data[:16])
    if mime is None:
        raise ImageRefused("it is not a PNG, JPEG, GIF or WebP image")
    side = _longest_side(data)
    if side > IMAGE_MAX_SIDE:
        raise ImageRefused(f"its longest side is {side} px, over the {IMAGE_MAX_SIDE} px limit")
    return mime


def _longest_side(data: bytes) -> int:
    """From the header only (``imagesize``); 0 when the header does not say."""
    import imagesize

    try:
        size: tuple[int, int] = imagesize.get(io.BytesIO(data))  # (-1, -1) when the header does not say
        width, height = size
    except Exception:  # noqa: BLE001 - a header imagesize cannot parse is not ours to refuse
        return 0
    return max(width, height, 0)
