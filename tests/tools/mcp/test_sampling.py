"""Sampling against a real SDK server (``tests/fakes/mcp_sampling.py``), in both protocol eras: declared
only when the server's config opts in, the request read whole, the answer (or the refusal) sent back."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agent_tui.tools.errors import ToolError
from agent_tui.tools.mcp.connection import McpConnection
from agent_tui.vocab.kinds import McpState
from agent_tui.vocab.mcp_server import McpServerConfig
from agent_tui.vocab.sampling import DECLINED, SamplingAnswer, SamplingMessage, SamplingRequest

SAMPLING = Path(__file__).resolve().parents[2] / "fakes" / "mcp_sampling.py"
ERAS = pytest.mark.parametrize("legacy", [False, True], ids=["2026", "2025-handshake"])


def sampling_config(legacy: bool = False, sampling: bool = True) -> McpServerConfig:
    argv = [sys.executable, str(SAMPLING), *(["legacy"] if legacy else [])]
    return McpServerConfig(command=argv, startup_timeout_s=60, sampling=sampling)


async def _started(workdir: Path, legacy: bool, sampling: bool = True) -> McpConnection:
    connection = McpConnection("sampler", sampling_config(legacy, sampling), workdir)
    connection.start()
    await connection.settled()
    assert connection.state is McpState.READY, connection.error
    return connection


@ERAS
async def test_an_approved_request_is_read_whole_and_the_answer_reaches_the_server(workdir: Path, legacy: bool) -> None:
    asked: list[SamplingRequest] = []

    async def sample(request: SamplingRequest) -> SamplingAnswer:
        asked.append(request)
        return SamplingAnswer(True, "Paris", "the-model", "endTurn")

    connection = await _started(workdir, legacy)
    try:
        result = await connection.call("ask_model", {"question": "Capital of France?"}, sample=sample)
        assert result.content[0].text == "the-model said 'Paris' (endTurn)"
        (request,) = asked
        assert request.server == "sampler"
        assert request.messages == (
            SamplingMessage("user", "[image: image/png]"),
            SamplingMessage("user", "Capital of France?"),
        )
        assert (request.system_prompt, request.max_tokens, request.temperature) == ("Answer in one word.", 64, 0.25)
        assert request.stop_sequences == ("END",)
        assert request.model_preferences == {"hints": [{"name": "small-model"}], "speedPriority": 0.9}
    finally:
        await connection.stop()


@ERAS
async def test_a_declined_request_is_an_error_the_server_and_the_call_see(workdir: Path, legacy: bool) -> None:
    async def sample(request: SamplingRequest) -> SamplingAnswer:
        return SamplingAnswer(False, reason=DECLINED)

    connection = await _started(workdir, legacy)
    try:
        with pytest.raises(ToolError, match="agent-tui declined to sample: the user declined"):
            await connection.call("ask_model", {"question": "Capital?"}, sample=sample)
        with pytest.raises(ToolError, match="declined to sample: no tool call to ask for"):
            await connection.call("ask_model", {"question": "Capital?"})  # no one to ask
    finally:
        await connection.stop()


@ERAS
@pytest.mark.parametrize("opted_in", [True, False], ids=["sampling = true", "not configured"])
async def test_the_capability_is_declared_only_to_a_server_that_opted_in(
    workdir: Path, legacy: bool, opted_in: bool
) -> None:
    connection = await _started(workdir, legacy, sampling=opted_in)
    try:
        said = (await connection.call("capabilities", {})).content[0].text
        assert said == ("sampling" if opted_in else "no sampling")
        if not opted_in:  # the server never gets to ask: its request fails on its own side
            with pytest.raises(ToolError, match="did not declare the sampling capability"):
                await connection.call("ask_model", {"question": "Capital?"}, sample=None)
    finally:
        await connection.stop()
