"""Pilot: big pastes as chips, images by paste and /image, the vision check, attachment chips
(real runtime, fake provider over HTTP)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from textual import events

from agent_tui.core.api import Runtime, load_settings
from agent_tui.testing.fake_provider import Turn
from agent_tui.tui.app import AgentApp, StartMode
from agent_tui.tui.services import TuiServices
from agent_tui.tui.widgets.block_widgets import UserMessage
from agent_tui.tui.widgets.prompt import PromptInput
from tests.core.inbox.test_attachments import PNG

from .conftest import FAST
from .test_app import until
from .test_app_provider import MODEL, app, idle, provider, runtime  # noqa: F401 - fixtures

__all__ = ["app", "provider", "runtime"]


def notices(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


def sent_user_content(provider) -> list[dict]:
    return [m for m in provider.accepted[-1].body["messages"] if m["role"] == "user"][-1]["content"]


async def paste(pilot, app, text: str) -> None:
    """As the terminal driver does: to the app, which hands it to the focused widget."""
    app.post_message(events.Paste(text))
    await pilot.pause()


async def test_a_big_paste_is_one_chip_that_expands_and_sends_in_full(app, provider) -> None:
    big = "".join(f"row {n}\n" for n in range(1, 144))
    provider.add(Turn(text="got it"))
    async with app.run_test() as pilot:
        await pilot.press(*"see ")
        await paste(pilot, app, big)
        prompt = app.query_one(PromptInput)
        await until(pilot, lambda: prompt.text == "see [pasted 143 lines]")
        await pilot.press("ctrl+e")
        assert prompt.text == "see " + big
        prompt.clear()
        await pilot.press(*"again ")
        await paste(pilot, app, big)
        await until(pilot, lambda: prompt.text == "again [pasted 143 lines]")
        await pilot.press("enter")
        await idle(pilot, app)
        assert sent_user_content(provider)[0]["text"] == "again " + big


async def test_a_paste_with_cr_line_ends_counts_its_lines_and_sends_newlines(app) -> None:
    """Some terminals send a paste's line ends as CR (or CR LF): still 143 lines, sent as ``\\n``."""
    rows = [f"row {n}" for n in range(1, 144)]
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await paste(pilot, app, "\r".join(rows) + "\r")
        await until(pilot, lambda: prompt.text == "[pasted 143 lines]")
        assert prompt.full_text() == "\n".join(rows) + "\n"
        prompt.clear()
        await paste(pilot, app, "\r\n".join(rows))
        await until(pilot, lambda: prompt.text == "[pasted 143 lines #2]" or prompt.text == "[pasted 143 lines]")
        assert prompt.full_text() == "\n".join(rows)


async def test_a_small_paste_is_plain_text(app) -> None:
    async with app.run_test() as pilot:
        await paste(pilot, app, "one\ntwo\n")
        prompt = app.query_one(PromptInput)
        await until(pilot, lambda: prompt.text == "one\ntwo\n")


def _vision_settings(provider) -> dict:  # noqa: F811 - the fixture above
    return {
        "model": MODEL,
        "api_base": provider.openai_base,
        "api_key": "k",
        "models": {MODEL: {"supports_vision": True}},
    }


@pytest.fixture
async def vision_runtime(provider):  # noqa: F811 - the fixture above
    """The runner reads the same settings as the app: it sends images only to a model that can see them."""
    cli = _vision_settings(provider)
    async with await Runtime.open(lambda location: load_settings(location, cli=cli), permission_policy=None) as opened:
        yield opened


@pytest.fixture
def vision_app(vision_runtime, workdir: Path, clock, provider) -> AgentApp:  # noqa: F811 - the fixtures above
    services = TuiServices(
        sessions=vision_runtime.sessions,
        location=str(workdir),
        model=MODEL,
        clock=clock,
        timings=FAST,
        settings=load_settings(workdir, cli=_vision_settings(provider)),
    )
    return AgentApp(services, start=StartMode(), watch_themes=False)


async def test_a_pasted_image_path_attaches_the_image_and_the_transcript_shows_its_chip(
    vision_app, provider, workdir
) -> None:
    app = vision_app
    (workdir / "my shot.png").write_bytes(PNG)
    provider.add(Turn(text="a tiny image"))
    async with app.run_test() as pilot:
        await pilot.press(*"what is this ")
        await paste(pilot, app, str(workdir / "my\\ shot.png"))
        prompt = app.query_one(PromptInput)
        await until(pilot, lambda: prompt.text == f'what is this @"{workdir / "my shot.png"}" ')
        await pilot.press("enter")
        await idle(pilot, app)
        image = next(c for c in sent_user_content(provider) if c["type"] == "image_url")
        assert image["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(PNG).decode()
        await until(pilot, lambda: app.query(UserMessage))
        assert app.query_one(UserMessage).block.attachments == f"🖼 my shot.png · {len(PNG)} B · 3×2"


async def test_slash_image_puts_the_mention_in_the_prompt(vision_app, provider, workdir) -> None:
    app = vision_app
    (workdir / "pic.png").write_bytes(PNG)
    (workdir / "notes.md").write_text("hello\n")
    provider.add(Turn(text="seen"))
    async with app.run_test() as pilot:
        await pilot.press(*"/image pic.png", "escape", "enter")
        prompt = app.query_one(PromptInput)
        await until(pilot, lambda: prompt.text == "@pic.png ")
        await pilot.press(*"and @notes.md", "escape", "enter")
        await provider.wait_for("completed", timeout=30)  # idle() alone can see the view before its drain starts
        await idle(pilot, app)
        kinds = [c["type"] for c in sent_user_content(provider)]
        assert kinds == ["text", "image_url", "text"]
        await until(pilot, lambda: app.query(UserMessage))
        assert app.query_one(UserMessage).block.attachments == f"🖼 pic.png · {len(PNG)} B · 3×2  📎 notes.md"
        await pilot.press(*"/image notes.md", "escape", "enter")
        await until(pilot, lambda: any("not a PNG, JPEG, GIF or WebP" in n for n in notices(app)))


async def test_an_image_for_a_model_without_vision_is_refused_and_the_prompt_kept(app, provider, workdir) -> None:
    (workdir / "pic.png").write_bytes(PNG)
    async with app.run_test() as pilot:
        await pilot.press(*"look @pic.png", "escape", "enter")
        prompt = app.query_one(PromptInput)
        await until(pilot, lambda: any("the current model cannot view images" in n for n in notices(app)), timeout=30)
        await until(pilot, lambda: prompt.text == "look @pic.png")
        assert provider.requests == []
