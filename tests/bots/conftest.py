"""Fixtures of the bot kit's tests (the fake referee is in botkit_fakes.py; the real referee,
Admin client, bot processes and the Node.js bot's `node_bin` come from tests/conftest.py)."""

from __future__ import annotations

import logging

import pytest


@pytest.fixture(autouse=True)
def _sdk_logs_at_info(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="brandeln")
