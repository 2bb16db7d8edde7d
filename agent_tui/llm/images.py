"""Which of the history's images go with a request, and the line that stands in for each other one.

The log keeps every image a tool returned or the user attached, and every step
sends the history again. Providers cap a request, not only an image: Anthropic
takes at most 32 MB and, past 20 images, only images of at most 2000 px a side.
So the newest images go, up to :data:`MAX_IMAGES` and :data:`MAX_IMAGE_CHARS`
of base64, and older ones become a placeholder line. The choice depends only on
the request, so a resumed session sends the same request.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from agent_tui.llm.types import AssistantTurn, Request, RequestImage, ToolUse, UserTurn

MAX_IMAGES = 20
MAX_IMAGE_CHARS = 24_000_000
"""Base64 characters of all images in one request (18 MB of image bytes), under Anthropic's 32 MB."""

BLIND = "the current model cannot view images"
OLDER = f"older images are not sent again (at most {MAX_IMAGES} images and 18 MB per request); read it again to see it"


def image_url(part: RequestImage) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:{part.mime};base64,{part.data}"}}


@dataclass(frozen=True)
class ImagePlan:
    vision: bool
    sent: frozenset[int] = field(default_factory=frozenset)
    """``id()`` of the image parts that go as images."""

    def shows(self, part: RequestImage) -> bool:
        return id(part) in self.sent

    def placeholder(self, part: RequestImage) -> str:
        name = f"{part.path} ({part.mime})" if part.path else part.mime
        return f"[image {name} omitted: {OLDER if self.vision else BLIND}]"


def plan_images(request: Request) -> ImagePlan:
    """The newest images within both caps, or none for a model without vision."""
    if not request.supports_vision:
        return ImagePlan(vision=False)
    sent: set[int] = set()
    chars = 0
    for part in reversed(list(_images(request))):
        if len(sent) == MAX_IMAGES or chars + len(part.data) > MAX_IMAGE_CHARS:
            break
        sent.add(id(part))
        chars += len(part.data)
    return ImagePlan(vision=True, sent=frozenset(sent))


def _images(request: Request) -> Iterator[RequestImage]:
    """In the order they are sent."""
    for message in request.messages:
        match message:
            case UserTurn(parts=parts):
                yield from (part for part in parts if isinstance(part, RequestImage))
            case AssistantTurn(parts=parts):
                for part in parts:
                    if isinstance(part, ToolUse) and part.result is not None:
                        yield from part.result.images
