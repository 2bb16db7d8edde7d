"""The completion list over the prompt: ``@`` paths and ``/`` commands.

It never takes focus: the prompt keeps the keys and moves the highlight
(Up/Down), accepts (Tab/Enter) or closes it (Esc) while it is shown.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from agent_tui.tui.choices import Choice


class CompletionList(OptionList):
    can_focus = False

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.choices: list[Choice] = []
        self.display = False

    @property
    def open(self) -> bool:
        return self.display and bool(self.choices)

    def show_choices(self, choices: list[Choice], empty: str | None = None) -> None:
        """Shows ``choices`` (or the ``empty`` line when there are none; hides with neither)."""
        self.choices = list(choices)
        self.clear_options()
        for choice in choices:
            line = Text(choice.label)
            if choice.help:
                line.append(f"  {choice.help}", style="dim")
            self.add_option(Option(line))
        if not choices and empty:
            self.add_option(Option(Text(empty, style="dim italic"), disabled=True))
        self.display = bool(choices) or bool(empty)
        self.highlighted = 0 if choices else None

    def close(self) -> None:
        self.choices = []
        self.display = False

    def move(self, step: int) -> None:
        if self.choices:
            self.highlighted = ((self.highlighted or 0) + step) % len(self.choices)

    @property
    def current(self) -> Choice | None:
        if not self.open or self.highlighted is None:
            return None
        return self.choices[self.highlighted]
