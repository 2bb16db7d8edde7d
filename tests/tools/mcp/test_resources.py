"""A read resource as the model reads it: text cut at the cap, an image only with vision, other blobs described."""

from __future__ import annotations

import base64
from types import SimpleNamespace

from agent_tui.tools.mcp.resources import read_text

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def _result(*contents: SimpleNamespace) -> SimpleNamespace:
    return SimpleNamespace(contents=list(contents))


def test_texts_are_joined_and_cut_at_the_cap_with_a_line_that_says_so() -> None:
    result = _result(
        SimpleNamespace(uri="a://1", mime_type="text/plain", text="one"),
        SimpleNamespace(uri="a://2", mime_type=None, text="two " * 10),
    )
    read = read_text(result, vision=False, cap=20)
    assert read.mime == "text/plain" and read.truncated
    assert read.text.startswith("one\n\ntwo two two ")
    assert read.text.endswith("[cut at 20 characters of 45: read_mcp_resource gives it all]")


def test_an_image_is_attached_only_with_vision_and_other_blobs_are_described() -> None:
    image = SimpleNamespace(uri="a://logo", mime_type="image/png", blob=PNG)
    seen = read_text(_result(image), vision=True)
    assert seen.text == "[image image/png attached: a://logo]"
    assert seen.images == [{"path": "a://logo", "mime": "image/png", "data": PNG}]
    blind = read_text(_result(image), vision=False)
    assert blind.images == [] and "an image the current model cannot view" in blind.text
    data = base64.b64encode(b"\x00" * 10).decode()
    other = read_text(_result(SimpleNamespace(uri="a://bin", mime_type="application/zip", blob=data)), vision=True)
    assert other.text == "[binary resource a://bin (application/zip, 10 bytes): not shown]"
    bad = read_text(_result(SimpleNamespace(uri="a://x", mime_type="image/png", blob="!!!")), vision=True)
    assert bad.images == [] and bad.text.startswith("[binary resource a://x (image/png")
