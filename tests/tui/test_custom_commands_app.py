"""Pilot: custom commands in the running app (real runtime, fake provider over HTTP)."""

from __future__ import annotations

from agent_tui.testing.fake_provider import Turn
from agent_tui.tui.screens.help import HelpScreen
from agent_tui.tui.widgets.completion import CompletionList
from agent_tui.tui.widgets.prompt import PromptInput

from .test_app import until
from .test_app_provider import app, idle, provider, runtime  # noqa: F401 - fixtures

__all__ = ["app", "provider", "runtime"]


def notices(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_a_prompt_file_is_a_command_that_sends_its_expanded_body(app, provider, workdir) -> None:
    commands = workdir / ".agent-tui" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("---\ndescription: Review one file\n---\nReview @$1 for $2 bugs.\n")
    (workdir / "a.py").write_text("x = 1 / 0\n")
    provider.add(Turn(text="Found one."), Turn(text="Again."))
    async with app.run_test() as pilot:
        await until(pilot, lambda: "review" in app.services.custom_commands)
        await pilot.press(*"/rev")
        completion = app.query_one(CompletionList)
        await until(
            pilot,
            lambda: [(c.label, c.help) for c in completion.choices] == [("/review [ARGUMENTS]", "Review one file")],
        )
        await pilot.press("tab", *"a.py division", "enter")
        await idle(pilot, app)
        content = [m for m in provider.accepted[0].body["messages"] if m["role"] == "user"][-1]["content"]
        assert content[0]["text"] == "Review @a.py for division bugs."
        assert "x = 1 / 0" in content[1]["text"]

        (commands / "review.md").write_text("Look again at $ARGUMENTS.\n")  # re-read on change
        await until(
            pilot, lambda: app.services.custom_commands["review"].body == "Look again at $ARGUMENTS.", timeout=10
        )
        await pilot.press(*"/review it", "enter")
        await until(pilot, lambda: len(provider.accepted) == 2, timeout=30)
        assert "Look again at it." in str(provider.accepted[1].body["messages"][-1])

        (commands / "broken.md").write_text("---\ncolour: red\n---\nx\n")
        await until(
            pilot, lambda: any(str(commands / "broken.md") in n and "line 2" in n for n in notices(app)), timeout=10
        )
        assert "review" in app.services.custom_commands  # the others still work

        await pilot.press("f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert ("/review [ARGUMENTS]", "custom command (review.md)") in app.screen.commands


async def test_an_unknown_command_keeps_the_text_and_sends_nothing(app, provider) -> None:
    async with app.run_test() as pilot:
        await pilot.press(*"/nosuch thing", "escape", "enter")
        prompt = app.query_one(PromptInput)
        await until(pilot, lambda: any("unknown command /nosuch" in n for n in notices(app)))
        assert prompt.text == "/nosuch thing" and provider.requests == []


async def test_init_sends_the_prompt_that_asks_for_agents_md_like_any_prompt(app, provider) -> None:
    provider.add(Turn(text="Wrote AGENTS.md."))
    async with app.run_test() as pilot:
        await pilot.press(*"/init", "enter")
        await until(pilot, lambda: len(provider.accepted) == 1, timeout=30)
        sent = [m for m in provider.accepted[0].body["messages"] if m["role"] == "user"][-1]["content"]
        text = sent if isinstance(sent, str) else sent[0]["text"]
        assert text.startswith("Write or improve this project's `AGENTS.md`") and "apply_patch" in text
        assert app.query_one(PromptInput).text == ""  # sent, not left in the prompt
