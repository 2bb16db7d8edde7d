"""Telemetry fixtures: an OTLP/HTTP collector on 127.0.0.1 for the test."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.fakes.otlp_receiver import OtlpReceiver


@pytest.fixture
async def collector() -> AsyncIterator[OtlpReceiver]:
    receiver = await OtlpReceiver().start()
    yield receiver
    await receiver.stop()
