"""Per-bot decision latency in the ladder: combined per block, stored with it, on the board."""

from __future__ import annotations

import dataclasses
import shutil
import sqlite3
from pathlib import Path

from brandeln.ladder.ratings.leaderboard import season_leaderboard
from brandeln.ladder.ratings.order import record_and_rate
from brandeln.ladder.ratings.trueskill_model import RatingModel
from brandeln.ladder.season.duplicate import (
    BlockPlan,
    BotBlockResult,
    DecisionLatency,
    MatchOutcome,
    block_results,
    combine_latency,
)
from brandeln.ladder.store.database import LadderStore
from tests.ladder.season_helpers import finished_block, season_config

BOTS = ("a", "b", "c", "d")
CONFIG = season_config(BOTS, blocks=2)
MODEL = RatingModel(CONFIG.rating)


def _with_latency(index: int) -> tuple[BlockPlan, list[MatchOutcome], dict[str, BotBlockResult]]:
    """A finished block whose seat s answers in (s+1)*10 ms at the median in every match."""
    plan, outcomes, _ = finished_block(index, BOTS, (0, 0, 0, 0))
    timed = [
        dataclasses.replace(
            outcome,
            latency=tuple(
                DecisionLatency(
                    decisions=20,
                    p50_ms=(s + 1) * 10,
                    p95_ms=(s + 1) * 20,
                    max_ms=(s + 1) * 30 + outcome.plan.rotation,
                )
                for s in range(4)
            ),
        )
        for outcome in outcomes
    ]
    return plan, timed, block_results(plan, timed)


def test_combined_latency_weights_percentiles_by_decisions_and_keeps_the_slowest() -> None:
    combined = combine_latency(
        [DecisionLatency(10, 4, 9, 20), DecisionLatency(0, 0, 0, 0), DecisionLatency(30, 8, 13, 15)]
    )
    assert combined == DecisionLatency(decisions=40, p50_ms=7, p95_ms=12, max_ms=20)
    assert combine_latency([]) == DecisionLatency()


def test_a_block_result_has_its_bot_latency_over_every_seat_it_played() -> None:
    _, _, results = _with_latency(0)
    # Every bot sat once in each seat: medians 10, 20, 30, 40 -> 25; the slowest of its seats.
    for bot in BOTS:
        latency = results[bot].latency
        assert latency.decisions == 80
        assert latency.p50_ms == 25
        assert latency.p95_ms == 50
        assert 120 <= latency.max_ms <= 123


def test_latency_is_stored_with_the_block_and_reaches_the_leaderboard(tmp_path: Path) -> None:
    with LadderStore.open(tmp_path / "ladder.db") as store:
        store.seasons.ensure_season(CONFIG, MODEL.initial())
        for index in range(2):
            record_and_rate(store, CONFIG.name, *_with_latency(index), MODEL.rate_block)
    with LadderStore.open(tmp_path / "ladder.db", create=False) as store:
        stored = store.reads.latency(CONFIG.name)
        assert set(stored) == {(block, bot) for block in range(2) for bot in BOTS}
        rows = season_leaderboard(store, CONFIG.name)
    for row in rows:
        assert row.latency.decisions == 160
        assert row.latency.p50_ms == 25
        assert row.to_json()["latency"]["p95_ms"] == 50


def test_an_older_file_upgraded_shows_no_latency_and_its_strikes_from_the_results(
    tmp_path: Path,
) -> None:
    # A ladder.db of schema version 2 (made by the code of that time): its results carry
    # strikes but no latency. The upgrade (revision 0004) must show latency as unknown, not as
    # 0 ms, and total the strikes of the rated blocks only, as the store adds them.
    path = tmp_path / "ladder.db"
    shutil.copyfile(Path(__file__).resolve().parent.parent / "data" / "ladder_v2.db", path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE results SET strikes = 2 WHERE bot = 'a'")
        (next_to_rate,) = db.execute("SELECT next_to_rate FROM seasons").fetchone()
        (rated,) = db.execute(
            "SELECT count(*) FROM results WHERE bot = 'a' AND block_index < ?", (next_to_rate,)
        ).fetchone()
    with LadderStore.open(path, create=False) as store:
        assert store.reads.latency("legacy") == {}
        rows = {row.bot: row for row in season_leaderboard(store, "legacy")}
    assert all(
        row.latency.decisions == 0 and row.to_json()["latency"] is None for row in rows.values()
    )
    assert rows["a"].strikes == 2 * rated
    assert rows["b"].strikes == 0
