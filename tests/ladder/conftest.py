"""Fixtures of the ladder's tests: a ladder store and a fake referee (see fake_referee.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from brandeln.ladder.store.database import LadderStore
from tests.ladder.fake_referee import FakeReferee, start_fake_referee


@pytest.fixture
def store(tmp_path: Path) -> Iterator[LadderStore]:
    with LadderStore.open(tmp_path / "data" / "ladder.db") as opened:
        yield opened


@pytest.fixture
async def fake() -> AsyncIterator[FakeReferee]:
    """A fake referee on a free loopback port (Admin + the Play handshake)."""
    referee = await start_fake_referee()
    try:
        yield referee
    finally:
        await referee.stop()
