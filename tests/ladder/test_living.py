"""The always-on ladder's loop (brandeln.ladder.living.ladder) on the fake referee: who is seated,
what a store failure costs, challenges, and the ranking it converges to among bots of known skill.

The fake referee's chips are a pure function of the seed, the deal, the seat and each bot's
``skill`` (tests/ladder/fake_referee.py), so every run here is the same run: no verdict
depends on timing.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from brandeln.ladder.errors import StorageError
from brandeln.ladder.living.config import EventKind, LadderConfig, LadderEvent, new_version_rating
from brandeln.ladder.living.ladder import LivingLadder
from brandeln.ladder.referee.admin_client import AdminClient
from brandeln.ladder.season.commitment import deal_seed, matches_commitment
from brandeln.ladder.season.duplicate import block_seed
from brandeln.ladder.store import periods as storage_periods
from brandeln.ladder.store.database import LadderStore
from brandeln.ladder.store.schema import ChallengeState, Presence
from tests.ladder.fake_referee import ADMIN_TOKEN, FakeReferee

CONFIG = LadderConfig(name="live", deals_per_match=2, seed=3, interval_s=0.05)
FRESH, WIDEN = new_version_rating(CONFIG)


@pytest.fixture(autouse=True)
def _fixed_period_seeds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each seed period's secret drawn from a fixed sequence, not the system's randomness:
    the blocks' deals (and so the fake's chips and matchmaking) are the same on every run."""
    drawn = itertools.count()
    monkeypatch.setattr(
        storage_periods,
        "new_secret",
        lambda: hashlib.sha256(f"period {next(drawn)}".encode()).hexdigest(),
    )


@pytest.fixture
async def admin(fake: FakeReferee) -> AsyncIterator[AdminClient]:
    async with AdminClient(fake.address, ADMIN_TOKEN) as client:
        yield client


def _versions(
    fake: FakeReferee, store: LadderStore, families: str, *, connected: str | None = None
) -> None:
    """One version of each family, registered at the fake referee (connected: a session)."""
    store.ladders.ensure_ladder(CONFIG.name, CONFIG.settings(), 4, {"challenges_per_hour": 5})
    for family in families:
        bot_id, _ = fake.add_bot(f"{family}@1")
        store.ladders.add_version(CONFIG.name, family, "1", bot_id, FRESH, WIDEN)
        if connected is None or family in connected:
            fake.add_session(bot_id)


async def test_a_version_not_connected_is_skipped_and_seen_away(
    fake: FakeReferee, store: LadderStore, admin: AdminClient
) -> None:
    _versions(fake, store, "abcde", connected="abcd")
    ladder = LivingLadder(CONFIG, store, admin)
    for _ in range(3):
        assert await ladder.play_next()
    assert all("e@1" not in block.bots for block in store.planned.recent_blocks(CONFIG.name))
    assert {v.name: v.blocks for v in store.ladders.versions(CONFIG.name)}["e@1"] == 0
    assert store.presence.presence(CONFIG.name)["e@1"].presence is Presence.AWAY
    assert store.presence.presence(CONFIG.name)["a@1"].presence is Presence.IDLE
    assert ladder.counts.versions_connected == 4


async def test_with_too_few_connected_nothing_is_planned(
    fake: FakeReferee, store: LadderStore, admin: AdminClient
) -> None:
    _versions(fake, store, "abcd", connected="abc")
    events: list[LadderEvent] = []
    ladder = LivingLadder(CONFIG, store, admin, listener=events.append)
    assert not await ladder.play_next()
    assert store.planned.recent_blocks(CONFIG.name) == []
    assert "3 active version(s) connected" in events[-1].detail
    assert ladder.counts.waits == 1


async def test_a_store_failure_is_waited_out_and_its_block_played_once(
    fake: FakeReferee, store: LadderStore, admin: AdminClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    _versions(fake, store, "abcd")
    real = store.blocks.record_and_rate
    failed: list[int] = []

    def flaky(season: str, plan, *args, **kwargs):  # type: ignore[no-untyped-def]
        if not failed:
            failed.append(plan.index)
            raise StorageError("ladder database: recording a block: the server went away")
        return real(season, plan, *args, **kwargs)

    monkeypatch.setattr(store.blocks, "record_and_rate", flaky)
    ladder = LivingLadder(CONFIG, store, admin)
    stop = asyncio.Event()

    def stop_after_three(event: LadderEvent) -> None:
        if event.kind is EventKind.RECORDED and len(store.blocks.finished_blocks(CONFIG.name)) >= 3:
            stop.set()

    ladder.listener = stop_after_three
    await asyncio.wait_for(ladder.serve(stop), 120)
    assert failed == [0]
    assert ladder.counts.errors == 1
    finished = store.blocks.finished_blocks(CONFIG.name)
    assert 0 in finished  # the block whose record failed was given back and played again
    assert finished == set(range(len(finished)))
    assert store.blocks.next_to_rate(CONFIG.name) == len(finished)  # rated in order, none twice


async def test_challenges_go_first_and_one_naming_a_retired_version_is_refused(
    fake: FakeReferee, store: LadderStore, admin: AdminClient
) -> None:
    _versions(fake, store, "abcdef")
    queue = store.challenges.queue_challenge
    refused = queue(CONFIG.name, ("f@1",), deals=1, rated=True, requested_by="t", per_hour=5)
    wanted = queue(CONFIG.name, ("e@1", "a@1"), deals=1, rated=False, requested_by="t", per_hour=5)
    store.ladders.retire_version(CONFIG.name, "f@1")
    ladder = LivingLadder(CONFIG, store, admin)
    assert await ladder.play_next()
    [block] = store.planned.recent_blocks(CONFIG.name)
    assert block.challenge_id == wanted
    assert {"e@1", "a@1"} <= set(block.bots)
    assert (block.deals, block.rated) == (1, False)
    states = {c.challenge_id: c.state for c in store.challenges.challenges(CONFIG.name)}
    assert states == {refused: ChallengeState.REFUSED, wanted: ChallengeState.PLAYED}
    assert ladder.counts.challenges_played == ladder.counts.challenges_refused == 1
    assert {v.blocks for v in store.ladders.versions(CONFIG.name)} == {0}  # unrated: nothing moved


async def test_the_ladder_ranks_bots_of_known_skill_in_their_order(
    fake: FakeReferee, store: LadderStore, admin: AdminClient
) -> None:
    families = "abcdef"
    fake.skill = {family: 2 * rank for rank, family in enumerate(families)}  # f best
    _versions(fake, store, families)
    ladder = LivingLadder(CONFIG, store, admin)
    for _ in range(30):
        assert await ladder.play_next()
    versions = store.ladders.versions(CONFIG.name)
    by_mu = [v.family for v in sorted(versions, key=lambda v: v.rating.mu)]
    assert by_mu == list(families)
    blocks = [v.blocks for v in versions]
    assert min(blocks) >= 30 * 4 // len(families) - 4  # everyone plays regularly


async def test_versions_that_join_a_settled_ladder_share_its_seats(
    fake: FakeReferee, store: LadderStore, admin: AdminClient
) -> None:
    fake.skill = {"a": 0, "b": 1, "c": 2, "d": 3, "e": 0}
    _versions(fake, store, "abcd")
    ladder = LivingLadder(CONFIG, store, admin)
    for _ in range(110):
        assert await ladder.play_next()
    for family, version in (("a", "2"), ("e", "1")):
        bot_id, _ = fake.add_bot(f"{family}@{version}")
        store.ladders.add_version(CONFIG.name, family, version, bot_id, FRESH, WIDEN)
        fake.add_session(bot_id)
    for _ in range(80):
        assert await ladder.play_next()
    # Over the last 40 blocks (160 seats, 32 each if even), every version plays nearly its
    # share: the pairs' meetings from before the newcomers came fade from the window instead
    # of reading as overplay (over a 200-block history the old versions played 26 times).
    late = store.planned.recent_blocks(CONFIG.name, limit=40)
    active = [v.name for v in store.ladders.versions(CONFIG.name) if v.active]
    seats = {name: sum(name in block.bots for block in late) for name in active}
    assert sorted(seats) == ["a@2", "b@1", "c@1", "d@1", "e@1"]
    assert min(seats.values()) >= 28, seats


async def test_each_period_is_committed_before_its_first_block_and_revealed_after_its_last(
    fake: FakeReferee, store: LadderStore, admin: AdminClient
) -> None:
    config = replace(CONFIG, period_blocks=2)
    _versions(fake, store, "abcd")
    seen: list[tuple[int | None, str | None]] = []
    published: list[str] = []

    def on_planned(event: LadderEvent) -> None:
        if event.kind is EventKind.COMMITTED:
            published.append(event.detail)
        # As the block starts to be played: its period is committed, its seed still secret.
        if event.kind is EventKind.PLANNED and event.block is not None:
            period = store.commitments.period_of_block(config.name, event.block)
            assert period is not None
            assert period.commitment.seed is None
            seen.append((event.block, period.commitment.digest))

    ladder = LivingLadder(config, store, admin, listener=on_planned)
    for _ in range(3):
        assert await ladder.play_next()
    assert [block for block, _ in seen] == [0, 1, 2]
    assert seen[0][1] == seen[1][1] != seen[2][1]  # blocks 0-1 in period 0, 2 opens period 1
    assert published == [
        f"period 0 (blocks 0-1) committed: {seen[0][1]}",
        f"period 1 (blocks 2-3) committed: {seen[2][1]}",
    ]
    newest, oldest = store.commitments.seed_periods(config.name)
    assert (oldest.period, oldest.recorded, newest.period, newest.recorded) == (0, 2, 1, 1)
    seed = oldest.commitment.seed
    assert seed is not None  # its blocks are all recorded: revealed
    assert matches_commitment(oldest.commitment.digest, seed, oldest.commitment.schedule)
    assert newest.commitment.seed is None
    for index in (0, 1):
        assert store.planned.planned_block(config.name, index).seed == block_seed(
            deal_seed(seed), index
        )
