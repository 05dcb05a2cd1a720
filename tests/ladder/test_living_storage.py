"""The always-on ladder's store (brandeln.ladder.store.living, storage_planned, storage_challenges,
storage_presence) on both backends: versions, planned blocks, challenges, presence.

Every test runs on an SQLite file and on a fresh PostgreSQL database (``db_url``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest

from brandeln.ladder.errors import LadderError, SeasonMismatchError
from brandeln.ladder.living.config import VERSION_WIDEN, LadderConfig, new_version_rating
from brandeln.ladder.ratings.order import record_and_rate
from brandeln.ladder.ratings.trueskill_model import Rating, RatingModel
from brandeln.ladder.season.claims import new_runner_id, retire
from brandeln.ladder.store.database import ChallengeLimitError, LadderStore, VersionError
from brandeln.ladder.store.schema import ChallengeState, Presence, VersionStatus
from tests.ladder.season_helpers import finished_block

CONFIG = LadderConfig(name="live", deals_per_match=2, seed=7)
MODEL = RatingModel(CONFIG.rating)
FRESH, WIDEN = new_version_rating(CONFIG)


@pytest.fixture
def store(db_url: str) -> Iterator[LadderStore]:
    with LadderStore.open(db_url) as opened:
        opened.ladders.ensure_ladder(CONFIG.name, CONFIG.settings(), 4, {"challenges_per_hour": 2})
        yield opened


def _add(store: LadderStore, family: str, version: str = "1") -> str:
    return store.ladders.add_version(
        CONFIG.name, family, version, f"bot_{family}{version}", FRESH, WIDEN
    ).name


def _four(store: LadderStore) -> tuple[str, ...]:
    return tuple(_add(store, family) for family in "abcd")


def test_a_ladder_keeps_the_settings_that_decide_its_blocks(store: LadderStore) -> None:
    again = store.ladders.ensure_ladder(
        CONFIG.name, CONFIG.settings(), 4, {"challenges_per_hour": 9}
    )
    assert again.name == CONFIG.name
    assert store.ladders.ladder_settings(CONFIG.name)["run"] == {"challenges_per_hour": 9}
    changed = {**CONFIG.settings(), "deals_per_match": 3}
    with pytest.raises(SeasonMismatchError, match="changed: deals_per_match"):
        store.ladders.ensure_ladder(CONFIG.name, changed, 4, {})
    with pytest.raises(LadderError, match="no always-on ladder named 'other'"):
        store.ladders.ladder_settings("other")


def test_a_new_version_retires_the_one_before_and_starts_from_its_rating_widened(
    store: LadderStore,
) -> None:
    first = store.ladders.add_version(CONFIG.name, "a", "1", "bot_a1", FRESH, WIDEN)
    assert first.rating == FRESH  # a family's first version: a fresh rating
    assert first.active
    plan, outcomes, results = finished_block(0, _four_more(store), (3, 1, -1, -3))
    store.planned.plan_block(CONFIG.name, plan.bots, CONFIG.seed, "r", deals=8)
    record_and_rate(store, CONFIG.name, plan, outcomes, results, MODEL.rate_block)
    rated = {v.name: v for v in store.ladders.versions(CONFIG.name)}["a@1"].rating
    assert rated.sigma < FRESH.sigma

    second = store.ladders.add_version(CONFIG.name, "a", "2", "bot_a2", FRESH, WIDEN)
    assert second.rating.mu == pytest.approx(rated.mu)
    assert second.rating.sigma == pytest.approx(math.hypot(rated.sigma, WIDEN))
    assert VERSION_WIDEN * CONFIG.rating.sigma == WIDEN
    versions = {v.name: v for v in store.ladders.versions(CONFIG.name)}
    assert versions["a@1"].status is VersionStatus.RETIRED  # kept, with its history
    assert versions["a@1"].blocks == 1
    assert versions["a@2"].status is VersionStatus.ACTIVE
    assert versions["a@2"].blocks == 0

    with pytest.raises(VersionError, match="a@2 is in ladder 'live' already"):
        store.ladders.add_version(CONFIG.name, "a", "2", "bot_x", FRESH, WIDEN)
    store.ladders.retire_version(CONFIG.name, "a@2")
    assert not {v.name: v for v in store.ladders.versions(CONFIG.name)}["a@2"].active
    with pytest.raises(VersionError, match="no version 'zz@1'"):
        store.ladders.retire_version(CONFIG.name, "zz@1")
    # A rebuild after the family's every version was retired still starts from its rating.
    third = store.ladders.add_version(CONFIG.name, "a", "3", "bot_a3", FRESH, WIDEN)
    assert third.rating.mu == pytest.approx(rated.mu)


def _four_more(store: LadderStore) -> tuple[str, ...]:
    """Three more families beside a@1: a block's four players."""
    return ("a@1", *(_add(store, family) for family in "bcd"))


def test_a_planned_block_is_claimed_at_once_and_taken_again_after_its_runner_died(
    store: LadderStore,
) -> None:
    bots = _four(store)
    dead = new_runner_id()
    index = store.planned.plan_block(CONFIG.name, bots, CONFIG.seed, dead, deals=2)
    assert index == 0
    alive = new_runner_id()
    try:
        assert store.blocks.claim_block(CONFIG.name, alive) is None  # its runner still plays it
        retire(dead)  # as a SIGKILLed process: its claims are free for the next run
        assert store.blocks.claim_block(CONFIG.name, alive) == 0
        block = store.planned.planned_block(CONFIG.name, 0)
        assert (block.bots, block.deals, block.rated) == (bots, 2, True)
        # Planned again with another seat (its bot left): same index, same seed.
        moved = ("e@1", *bots[1:])
        store.planned.replan_block(CONFIG.name, 0, moved)
        again = store.planned.planned_block(CONFIG.name, 0)
        assert (again.bots, again.seed) == (moved, block.seed)
        assert store.planned.plan_block(CONFIG.name, bots, CONFIG.seed, alive, deals=2) == 1
        assert [b.index for b in store.planned.recent_blocks(CONFIG.name)] == [1, 0]
    finally:
        retire(alive)


def test_the_play_history_counts_rated_pairs_and_last_blocks_over_a_window(
    store: LadderStore,
) -> None:
    bots = _four(store)
    e = _add(store, "e")
    store.planned.plan_block(CONFIG.name, bots, CONFIG.seed, "r", deals=2)
    store.planned.plan_block(CONFIG.name, (*bots[:3], e), CONFIG.seed, "r", deals=2)
    store.planned.plan_block(CONFIG.name, (*bots[1:], e), CONFIG.seed, "r", deals=2, rated=False)
    history = store.planned.play_history(CONFIG.name, window=10)
    assert history.next_block == 3
    assert history.pairs[frozenset(("a@1", "b@1"))] == 2
    assert history.pairs[frozenset(("a@1", "d@1"))] == 1
    assert frozenset(("d@1", "e@1")) not in history.pairs  # met only unrated
    assert history.blocks == {"a@1": 2, "b@1": 2, "c@1": 2, "d@1": 1, "e@1": 1}
    assert history.last == {"a@1": 1, "b@1": 2, "c@1": 2, "d@1": 2, "e@1": 2}
    # Over the newest block alone: a@1 last played before the window, so it is not in it.
    newest = store.planned.play_history(CONFIG.name, window=1)
    assert "a@1" not in newest.last
    assert newest.pairs == {}


def test_an_unrated_challenge_keeps_its_place_and_moves_no_rating(store: LadderStore) -> None:
    bots = _four(store)
    number = store.challenges.queue_challenge(
        CONFIG.name, bots, deals=8, rated=False, requested_by="t", per_hour=5
    )
    index = store.planned.plan_block(
        CONFIG.name, bots, CONFIG.seed, "r", deals=8, rated=False, challenge_id=number
    )
    [planned] = store.challenges.challenges(CONFIG.name, ChallengeState.PLANNED)
    assert (planned.challenge_id, planned.block_index) == (number, index)
    plan, outcomes, results = finished_block(index, bots, (5, 1, -1, -5))
    assert record_and_rate(store, CONFIG.name, plan, outcomes, results, MODEL.rate_block) == [0]
    assert {v.rating for v in store.ladders.versions(CONFIG.name)} == {FRESH}
    assert {v.blocks for v in store.ladders.versions(CONFIG.name)} == {0}
    # The next block, rated, rates at once: the unrated one held nothing up.
    store.planned.plan_block(CONFIG.name, bots, CONFIG.seed, "r", deals=8)
    plan, outcomes, results = finished_block(1, bots, (5, 1, -1, -5))
    assert record_and_rate(store, CONFIG.name, plan, outcomes, results, MODEL.rate_block) == [1]
    assert {v.blocks for v in store.ladders.versions(CONFIG.name)} == {1}


def test_challenges_are_limited_per_bot_per_hour_and_name_active_versions(
    store: LadderStore,
) -> None:
    bots = _four(store)
    queue = store.challenges.queue_challenge
    first = queue(CONFIG.name, bots[:2], deals=2, rated=True, requested_by="t", per_hour=2)
    second = queue(CONFIG.name, bots[1:3], deals=2, rated=True, requested_by="t", per_hour=2)
    assert second == first + 1
    with pytest.raises(ChallengeLimitError, match="b@1 was challenged 2 times in the last hour"):
        queue(CONFIG.name, bots[:2], deals=2, rated=True, requested_by="t", per_hour=2)
    store.ladders.retire_version(CONFIG.name, "d@1")
    with pytest.raises(ChallengeLimitError, match="'d@1' is no active version"):
        queue(CONFIG.name, ("d@1",), deals=2, rated=True, requested_by="t", per_hour=2)
    assert store.challenges.challenges_queued(CONFIG.name) == 2
    store.challenges.set_challenge(first, ChallengeState.REFUSED, "a@1 left the ladder")
    [refused] = store.challenges.challenges(CONFIG.name, ChallengeState.REFUSED)
    assert refused.detail == "a@1 left the ladder"
    assert store.challenges.challenges_queued(CONFIG.name) == 1


def test_presence_is_kept_per_version_with_its_last_error(store: LadderStore) -> None:
    bots = _four(store)
    store.presence.see_versions(
        CONFIG.name, {bots[0]: (Presence.IDLE, 2), bots[1]: (Presence.AWAY, 0)}
    )
    store.presence.version_error(CONFIG.name, bots[1], "block 3: 2 timeout(s)" + "x" * 1000)
    store.presence.see_versions(CONFIG.name, {bots[1]: (Presence.PLAYING, 1)})
    seen = store.presence.presence(CONFIG.name)
    assert seen[bots[0]].presence is Presence.IDLE
    assert seen[bots[0]].sessions == 2
    assert seen[bots[1]].presence is Presence.PLAYING
    assert seen[bots[1]].last_error.startswith("block 3: 2 timeout(s)")
    assert len(seen[bots[1]].last_error) == 300  # a line for a page, whatever the bot caused
    assert seen[bots[1]].last_error_at is not None
    assert bots[2] not in seen


def test_version_ratings_round_trip_exactly(store: LadderStore) -> None:
    start = Rating(31.25, 2.5)
    added = store.ladders.add_version(CONFIG.name, "z", "9", "bot_z", start, 0.0)
    assert added.rating == start
