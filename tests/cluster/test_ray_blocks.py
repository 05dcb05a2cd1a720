"""How RayBlocks treats a block whose actor is lost (brandeln.cluster.ray_blocks), with fake actors:
no Ray cluster is started, only Ray's exception types are used."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import ray.exceptions

from brandeln.cluster.errors import ClusterError
from brandeln.cluster.ray_blocks import MAX_LOSSES_PER_BLOCK, RETRY_PAUSE_MAX_S, RayBlocks
from brandeln.cluster.worker import PlayedBlock
from brandeln.ladder.season.duplicate import BlockPlan


class _Method:
    def __init__(self, actor: _FlakyActor) -> None:
        self.actor = actor

    def remote(self, plan: BlockPlan, deals: int | None) -> asyncio.Future[PlayedBlock]:
        future: asyncio.Future[PlayedBlock] = asyncio.get_running_loop().create_future()
        self.actor.calls += 1
        if self.actor.calls <= self.actor.failures:
            future.set_exception(ray.exceptions.ActorUnavailableError("node marked dead", None))
        else:
            future.set_result(PlayedBlock(index=plan.index, outcomes=[], node="h1"))
        return future


class _FlakyActor:
    """Unreachable for its first ``failures`` calls, as an actor is while Ray restarts it."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0
        self.play = _Method(self)


@pytest.fixture
def pauses(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(asyncio, "sleep", sleep)  # the module reads asyncio.sleep at call time
    return slept


def _play(actor: Any) -> list[Any]:
    plan = BlockPlan(index=4, seed=1, bots=("a", "b", "c", "d"), matches=())
    return asyncio.run(RayBlocks([actor]).play_block(plan, lambda: None))


def test_a_lost_block_is_played_again_after_pauses_that_double(pauses: list[float]) -> None:
    actor = _FlakyActor(failures=MAX_LOSSES_PER_BLOCK - 1)
    assert _play(actor) == []
    assert actor.calls == MAX_LOSSES_PER_BLOCK
    # Long enough in all for a busy cluster to mark a node dead and restart its actors.
    assert pauses == [min(2.0**n, RETRY_PAUSE_MAX_S) for n in range(MAX_LOSSES_PER_BLOCK - 1)]
    assert sum(pauses) >= 30


def test_a_block_lost_too_often_ends_with_one_clear_error(pauses: list[float]) -> None:
    actor = _FlakyActor(failures=MAX_LOSSES_PER_BLOCK)
    with pytest.raises(ClusterError, match=f"block 4 lost its worker {MAX_LOSSES_PER_BLOCK} times"):
        _play(actor)
    assert actor.calls == MAX_LOSSES_PER_BLOCK
    assert len(pauses) == MAX_LOSSES_PER_BLOCK - 1  # no pause before giving up
