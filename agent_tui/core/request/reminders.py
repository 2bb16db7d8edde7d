"""Reminders the model reads between turns: a steer that arrived mid-turn, an agent switch.

Each is derived from the projected history alone (the steer's ``delivery``, each step's
``agent``), not stored as a message of its own: it is durable because what it is derived from is,
every request of the session carries it at the same place (the prefix a provider caches does not
move), and the transcript never shows it as something the user typed. The reference spec lists
these as the "steering, plan/build-switch, and final-step reminders" of request assembly; the
final-step one is added by the runner to the last step only (``request.assembly.as_final_step``).

A reminder goes right before the turn it speaks to: before the first assistant turn that follows
the steers, or the first one under the new agent, and at the end of the history while that turn
is the step about to run.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_tui.core.log.records import MessageRecord

STEER_REMINDER = (
    "The user sent the message above while you were working. Take it into account now: change "
    "course if it asks for something different, then carry on with the task unless it tells you to stop."
)

_TO_PLAN = (
    "The user switched to the plan agent. From here on, investigate and propose: read and search "
    "freely, but do not edit files or run commands that change anything. End with a plan the user can approve."
)
_PLAN_TO_BUILD = (
    "The user switched from the plan agent to the build agent. You may now edit files and run "
    "commands: carry out the plan agreed above, checking each change as you go."
)


def agent_switch_reminder(before: str, after: str) -> str:
    """What the model is told when the selected agent changes from ``before`` to ``after``."""
    if after == "plan":
        return _TO_PLAN
    if before == "plan" and after == "build":
        return _PLAN_TO_BUILD
    return f"The user switched from the {before} agent to the {after} agent: follow the {after} agent's instructions from here on."


def reminders_before(messages: Sequence[MessageRecord], agent: str | None = None) -> dict[int, list[str]]:
    """Reminder texts to place before ``messages[i]``; key ``len(messages)``: after the whole history,
    for the step about to run under ``agent`` (None: no step is about to run)."""
    placed: dict[int, list[str]] = {}
    mid_turn = False  # the last assistant step called tools: the turn goes on after it
    steered = False  # a steer was promoted into a turn that was going on
    last_agent: str | None = None

    def turn_starts(index: int, step_agent: str | None) -> None:
        nonlocal steered, last_agent
        texts = placed.setdefault(index, [])
        if steered:
            texts.append(STEER_REMINDER)
            steered = False
        if step_agent:
            if last_agent and step_agent != last_agent:
                texts.append(agent_switch_reminder(last_agent, step_agent))
            last_agent = step_agent
        if not texts:
            del placed[index]

    for index, message in enumerate(messages):
        match message.kind:
            case "assistant":
                turn_starts(index, message.data.get("agent"))
                called = any(part.get("type") == "tool" for part in message.data.get("parts", []))
                mid_turn = called and message.data.get("state") == "ended"
            case "user":
                if message.data.get("delivery") == "steer" and mid_turn:
                    steered = True
                else:
                    mid_turn = False
    if agent is not None:
        turn_starts(len(messages), agent)
    return placed
