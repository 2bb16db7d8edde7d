"""Pilot: ``@`` completion over the project's files, and what a mention sends (real runtime,
fake provider over HTTP)."""

from __future__ import annotations

import json

from agent_tui.testing.fake_provider import Turn
from agent_tui.tui.widgets.block_widgets import UserMessage
from agent_tui.tui.widgets.completion import CompletionList
from agent_tui.tui.widgets.prompt import PromptInput

from .test_app import until
from .test_app_provider import app, idle, provider, runtime, user_texts  # noqa: F401 - fixtures

__all__ = ["app", "provider", "runtime"]


def listed(app) -> list[str]:
    completion = app.query_one(CompletionList)
    return [c.label for c in completion.choices] if completion.display else []


def tree(workdir) -> None:
    (workdir / "src" / "widgets").mkdir(parents=True)
    (workdir / "src" / "widgets" / "prompt.py").write_text("class Prompt:\n    pass\n")
    (workdir / "src" / "core.py").write_text("core = 1\n")
    (workdir / "build").mkdir()
    (workdir / "build" / "prompt.py").write_text("generated\n")
    (workdir / ".gitignore").write_text("build/\n")


async def test_at_lists_ranked_files_honouring_gitignore_and_tab_inserts_the_path(app, workdir) -> None:
    tree(workdir)
    async with app.run_test() as pilot:
        await pilot.press(*"look at @prmpt")
        await until(pilot, lambda: listed(app))
        assert listed(app)[0] == "src/widgets/prompt.py"
        assert not any(p.startswith("build") for p in listed(app))  # .gitignore'd
        await pilot.press("tab")
        prompt = app.query_one(PromptInput)
        assert prompt.text == "look at @src/widgets/prompt.py "
        await until(pilot, lambda: not app.query_one(CompletionList).display)


async def test_a_folder_accepted_keeps_completing_inside_it(app, workdir) -> None:
    tree(workdir)
    async with app.run_test() as pilot:
        await pilot.press(*"@widg")
        await until(pilot, lambda: "src/widgets/" in listed(app))
        while app.query_one(CompletionList).current.label != "src/widgets/":
            await pilot.press("down")
        await pilot.press("enter")
        assert app.query_one(PromptInput).text == "@src/widgets/"
        await until(pilot, lambda: listed(app) and listed(app)[0] == "src/widgets/prompt.py")
        await pilot.press("escape")
        assert not app.query_one(CompletionList).display and app.query_one(PromptInput).text == "@src/widgets/"


async def test_sending_a_mention_sends_the_file_text_to_the_model(app, provider, workdir) -> None:
    tree(workdir)
    provider.add(Turn(text="It is a class."))
    async with app.run_test() as pilot:
        await pilot.press(*"what is @src/widgets/prompt.py")
        await until(pilot, lambda: listed(app))
        await pilot.press("escape", "enter")
        await idle(pilot, app)
        content = [m for m in provider.accepted[0].body["messages"] if m["role"] == "user"][-1]["content"]
        assert content[0]["text"] == "what is @src/widgets/prompt.py"
        assert (
            content[1]["text"].startswith('<file path="src/widgets/prompt.py">')
            and "class Prompt:" in content[1]["text"]
        )
        assert user_texts(app) == ["what is @src/widgets/prompt.py"]


async def test_a_missing_mention_is_one_line_keeps_the_prompt_and_sends_nothing(app, provider, workdir) -> None:
    async with app.run_test() as pilot:
        await pilot.press(*"explain @nothere.py", "escape", "enter")
        prompt = app.query_one(PromptInput)
        await until(pilot, lambda: prompt.text == "explain @nothere.py")
        await until(
            pilot, lambda: any("@nothere.py: no such file or folder" in str(n.message) for n in app._notifications)
        )
        assert provider.requests == [] and app.view.session_id is None


async def test_a_file_outside_asks_and_enter_again_attaches_it_once(app, provider, workdir, tmp_path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "far.txt").write_text("far text\n")
    provider.add(Turn(text="ok"))
    text = f"read @{outside / 'far.txt'}"
    async with app.run_test() as pilot:
        await pilot.press(*text, "escape", "enter")
        prompt = app.query_one(PromptInput)
        await until(
            pilot, lambda: any("external_directory permission asks" in str(n.message) for n in app._notifications)
        )
        await until(pilot, lambda: prompt.text == text)
        assert provider.requests == []
        await pilot.press("enter")
        await idle(pilot, app)
        assert "far text" in json.dumps(provider.accepted[0].body["messages"])


async def test_slash_lists_commands_with_their_help_and_tab_completes(app) -> None:
    async with app.run_test() as pilot:
        await pilot.press("/", "t")
        await until(pilot, lambda: listed(app) == ["/theme NAME"])
        assert app.query_one(CompletionList).choices[0].help == "switch the colour theme"
        await pilot.press("tab")
        assert app.query_one(PromptInput).text == "/theme "


async def test_at_offers_the_subagents_above_the_files_and_sending_one_asks_for_it(
    app, provider, runtime, workdir
) -> None:
    tree(workdir)
    provider.add(Turn(text="I will ask it."))
    app.services.settings = await runtime.settings_for(str(workdir))  # as the bootstrap sets them
    async with app.run_test() as pilot:
        await pilot.press(*"@e")
        await until(pilot, lambda: "explore" in listed(app))
        assert listed(app)[0] == "explore" and "general" not in listed(app)  # a prefix, not fuzzy
        assert app.query_one(CompletionList).choices[0].help.startswith("subagent · ")
        await pilot.press("tab")
        prompt = app.query_one(PromptInput)
        assert prompt.text == "@explore "
        await pilot.press(*"find the core", "enter")
        await idle(pilot, app)
        content = [m for m in provider.accepted[0].body["messages"] if m["role"] == "user"][-1]["content"]
        assert content[0]["text"] == "@explore find the core"
        assert 'call the task tool with agent "explore"' in content[1]["text"]
        assert user_texts(app) == ["@explore find the core"]  # the guidance is not the user's text
        assert app.query_one(UserMessage).block.attachments == "🤖 explore"
