"""Mentioned files and images reach the provider as stored, even after the file changed."""

from __future__ import annotations

import base64

import pytest

from agent_tui.core.inbox.attachments import build_prompt
from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider

from ...inbox.test_attachments import PNG
from .conftest import of_type, stored


def _user_content(body: dict) -> list[dict]:
    return [m for m in body["messages"] if m["role"] == "user"][-1]["content"]


@pytest.fixture
def settings_overrides() -> dict:
    return {"models": {"openai/fake-model": {"supports_vision": True}}}


async def test_the_file_text_and_image_go_to_the_model_and_stay_in_the_log(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    (workdir / "a.py").write_text("print('first')\n")
    (workdir / "shot.png").write_bytes(PNG)
    fake.add({"text": "seen"}, {"text": "again"})
    sid = (await runtime.sessions.create(location=workdir)).id
    parts = await build_prompt("explain @a.py and @shot.png", workdir, vision=lambda: True)
    await runtime.sessions.prompt(sid, parts, resume=False)
    assert await runtime.sessions.run(sid) is None
    content = _user_content(fake.accepted[0].body)
    texts = [c["text"] for c in content if c["type"] == "text"]
    assert texts[0] == "explain @a.py and @shot.png"
    assert texts[1].startswith('<file path="a.py">') and "print('first')" in texts[1]
    image = next(c for c in content if c["type"] == "image_url")
    assert image["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(PNG).decode()

    (workdir / "a.py").write_text("print('changed')\n")
    admitted = of_type(await stored(runtime, sid), ev.PromptAdmitted)[0]
    assert "print('first')" in admitted.prompt[1].text
    await runtime.sessions.prompt(sid, "and now?", resume=False)
    assert await runtime.sessions.run(sid) is None
    replayed = [m for m in fake.accepted[1].body["messages"] if m["role"] == "user"][0]["content"]
    assert any("print('first')" in c.get("text", "") for c in replayed)
    assert not any("changed" in c.get("text", "") for c in replayed)
