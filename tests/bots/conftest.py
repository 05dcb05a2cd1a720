"""Fixtures of the bot kit's tests (the fake referee is in botkit_fakes.py; the real referee,
Admin client and bot processes come from tests/conftest.py)."""

from __future__ import annotations

import logging
import shutil

import pytest


@pytest.fixture(autouse=True)
def _sdk_logs_at_info(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="sample_bots")


@pytest.fixture
def node_bin() -> str:
    """The `node` executable, or a skip saying that the Node bot test needs it."""
    node = shutil.which("node")
    npm = shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node/npm not found on PATH: the Node.js sample bot test needs Node.js 18+")
    return node
