"""`brandeln bench storage`: the ladder's store on SQLite and on PostgreSQL, at 1k and 100k
recorded matches: blocks recorded per second (each block in its transaction with its ratings,
as a runner records it) and the latency of what `brandeln ratings` reads.

A season is filled to the size with synthetic blocks (bulk inserts of the same rows a runner
writes: blocks, matches, results, rating history, totals, claims), then ``record`` more blocks
are recorded through the store one by one and ``brandeln ratings``'s reads (the season, the
ratings and the per-bot totals) are timed, the sizes in turns (the minimum is the figure a
busy machine disturbs least). With indexes and no full scans, the figures at 100k stay within
2x of those at 1k. Figures are printed, not asserted.

PostgreSQL: ``--db postgresql://...`` (a database the benchmark may fill; each size gets a season
of its own), or, without it, a throwaway server on a free loopback port started like the tests
do (tests/pg_server.py: Debian's initdb/postgres), if installed.
"""

from __future__ import annotations

import contextlib
import json
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import sqlalchemy

from brandeln.datastore.engine import open_engine
from brandeln.datastore.url import DatabaseUrl, parse_database_url, sqlite_url
from brandeln.ladder.ratings.leaderboard import season_leaderboard
from brandeln.ladder.ratings.order import record_and_rate
from brandeln.ladder.ratings.trueskill_model import RatingModel
from brandeln.ladder.season.config import parse_season
from brandeln.ladder.season.duplicate import BlockPlan, BotBlockResult, MatchOutcome, MatchPlan
from brandeln.ladder.store.database import LadderStore
from brandeln.ladder.store.schema import (
    BLOCK_CLAIMS,
    BLOCKS,
    BOT_TOTALS,
    MATCHES,
    RATING_HISTORY,
    RESULTS,
    SEASONS,
    ClaimState,
)
from brandeln.services import data_folder

__all__ = ["StorageBenchSettings", "print_storage_figures", "run_storage_bench"]

Say = Callable[[str], None]
BOTS = ("b1", "b2", "b3", "b4")
MATCHES_PER_BLOCK = 4


@dataclass(frozen=True)
class StorageBenchSettings:
    sizes: tuple[int, ...] = (1_000, 100_000)  # recorded matches before measuring
    record: int = 100  # blocks recorded through the store per size
    reads: int = 30  # `ratings` reads timed per size
    db: str | None = None  # a PostgreSQL URL; None: a throwaway server if installed

    @classmethod
    def quick(cls, db: str | None = None) -> StorageBenchSettings:
        return cls(sizes=(1_000, 10_000), record=30, reads=10, db=db)


def _season_text(name: str, blocks: int) -> str:
    bots = "".join(f'[[bots]]\nname = "{bot}"\nbot_id = "id-{bot}"\n' for bot in BOTS)
    return f'name = "{name}"\nseed = 1\nblocks = {blocks}\ndeals_per_match = 4\n{bots}'


def _block(index: int) -> tuple[BlockPlan, list[MatchOutcome], dict[str, BotBlockResult]]:
    """A synthetic finished block: four rotations, zero-sum chips, a ranking that varies."""
    shift = index % 4
    seating = BOTS[shift:] + BOTS[:shift]
    matches = tuple(
        MatchPlan(index, rotation, index, seating[rotation:] + seating[:rotation], "CSHD")
        for rotation in range(MATCHES_PER_BLOCK)
    )
    plan = BlockPlan(index, index, seating, matches)
    outcomes = [
        MatchOutcome(match, f"bench-{index}-{match.rotation}", (3, 1, -1, -3), frozenset(), 4)
        for match in matches
    ]
    chips = dict.fromkeys(BOTS, 0)
    for outcome in outcomes:
        for seat, bot in enumerate(outcome.plan.bots):
            chips[bot] += outcome.balances[seat]
    order = sorted(BOTS, key=lambda bot: (-chips[bot], (BOTS.index(bot) + index) % 4))
    results = {
        bot: BotBlockResult(
            bot=bot,
            rank=order.index(bot) + 1,
            chips=chips[bot],
            deals=16,
            forfeited=False,
            timeouts=0,
            illegal=0,
            strikes=0,
            contracts_bid=4,
            contracts_made=2,
        )
        for bot in BOTS
    }
    return plan, outcomes, results


def _fill(url: DatabaseUrl, season: str, blocks: int) -> None:
    """``blocks`` recorded and rated blocks in bulk (the rows the store writes per block)."""
    engine = open_engine(url, side="ladder")
    try:
        with engine.begin() as db:
            season_id = db.execute(
                sqlalchemy.select(SEASONS.c.season_id).where(SEASONS.c.name == season)
            ).scalar_one()
            batch = 2_000
            for start in range(0, blocks, batch):
                chunk = [_block(index) for index in range(start, min(blocks, start + batch))]
                db.execute(
                    BLOCKS.insert(),
                    [
                        {
                            "season_id": season_id,
                            "block_index": plan.index,
                            "seed": str(plan.seed),
                            "bots_json": json.dumps(plan.bots),
                            "finished_at": 0,
                        }
                        for plan, _, _ in chunk
                    ],
                )
                db.execute(
                    MATCHES.insert(),
                    [
                        {
                            "season_id": season_id,
                            "block_index": plan.index,
                            "rotation": o.plan.rotation,
                            "match_id": o.match_id,
                            "suit_permutation": o.plan.suit_permutation,
                            "bots_json": json.dumps(o.plan.bots),
                            "balances_json": json.dumps(o.balances),
                            "forfeited_json": "[]",
                            "deals_played": o.deals_played,
                        }
                        for plan, outcomes, _ in chunk
                        for o in outcomes
                    ],
                )
                db.execute(
                    RESULTS.insert(),
                    [
                        {"season_id": season_id, "block_index": plan.index, **_result_row(r)}
                        for plan, _, results in chunk
                        for r in results.values()
                    ],
                )
                db.execute(
                    RATING_HISTORY.insert(),
                    [
                        {
                            "season_id": season_id,
                            "block_index": plan.index,
                            "bot": bot,
                            "mu": 25.0,
                            "sigma": 8.0,
                        }
                        for plan, _, _ in chunk
                        for bot in BOTS
                    ],
                )
            db.execute(
                sqlalchemy.update(BLOCK_CLAIMS)
                .where(BLOCK_CLAIMS.c.season_id == season_id, BLOCK_CLAIMS.c.block_index < blocks)
                .values(state=ClaimState.DONE.value)
            )
            db.execute(
                sqlalchemy.update(SEASONS)
                .where(SEASONS.c.season_id == season_id)
                .values(next_to_rate=blocks, blocks_recorded=blocks)
            )
            db.execute(
                sqlalchemy.update(BOT_TOTALS)
                .where(BOT_TOTALS.c.season_id == season_id)
                .values(deals=16 * blocks, cpd_n=blocks, cpd_sum=0.0, cpd_sum_sq=float(blocks))
            )
        if url.backend.value == "postgresql":
            # Fresh statistics, as a database that grew over a season has them (the planner
            # would otherwise guess from the empty tables it saw first).
            with engine.connect() as db:
                db.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("ANALYZE")
    finally:
        engine.dispose()


def _result_row(r: BotBlockResult) -> dict[str, Any]:
    row = asdict(r)
    row["forfeited"] = int(r.forfeited)
    return row


def _prepare(
    url: DatabaseUrl, matches: int, settings: StorageBenchSettings, say: Say
) -> dict[str, Any]:
    """A season filled to ``matches`` recorded matches."""
    blocks = matches // MATCHES_PER_BLOCK
    season = f"bench-{matches}"
    config = parse_season(_season_text(season, blocks + settings.record), "bench.toml")
    with LadderStore.open(url) as store:
        store.seasons.ensure_season(config, RatingModel(config.rating).initial())
    started = time.perf_counter()
    _fill(url, season, blocks)
    fill_s = time.perf_counter() - started
    say(f"{url.backend.value}: {matches:,} matches in {fill_s:.1f} s")
    return {
        "backend": url.backend.value,
        "matches": matches,
        "season": season,
        "blocks": blocks,
        "fill_s": fill_s,
    }


def _time_records(url: DatabaseUrl, rows: list[dict[str, Any]], record: int) -> None:
    """``record`` more blocks into each season through the store, as a runner records them
    (one transaction each, ratings included), the sizes in turns like the reads."""
    model = RatingModel(parse_season(_season_text("x", 1), "bench.toml").rating)
    seconds = {row["season"]: 0.0 for row in rows}
    with LadderStore.open(url) as store:
        for offset in range(record):
            for row in rows:
                plan, outcomes, results = _block(row["blocks"] + offset)
                started = time.perf_counter()
                record_and_rate(store, row["season"], plan, outcomes, results, model.rate_block)
                seconds[row["season"]] += time.perf_counter() - started
        for row in rows:
            assert store.seasons.season(row["season"]).blocks_finished == row["blocks"] + record
    for row in rows:
        row["blocks_per_s"] = record / seconds[row["season"]]
        row["results_per_s"] = record * len(BOTS) / seconds[row["season"]]


def _time_reads(url: DatabaseUrl, rows: list[dict[str, Any]], reads: int) -> None:
    """`brandeln ratings`' reads (the season, its ratings and totals) of every size, taken in
    turns so that a busy machine slows every size alike; the minimum is the undisturbed one."""
    with LadderStore.open(url) as store:
        latencies: dict[str, list[float]] = {row["season"]: [] for row in rows}
        for _ in range(reads):
            for season, times in latencies.items():
                started = time.perf_counter()
                season_leaderboard(store, store.seasons.season(season).name)
                times.append((time.perf_counter() - started) * 1000)
    for row in rows:
        times = latencies[row["season"]]
        row["ratings_ms_median"] = statistics.median(times)
        row["ratings_ms_min"] = min(times)


def _measure(url: DatabaseUrl, settings: StorageBenchSettings, say: Say) -> list[dict[str, Any]]:
    rows = [_prepare(url, size, settings, say) for size in settings.sizes]
    say(f"{url.backend.value}: recording and reading, the sizes in turns")
    _time_records(url, rows, settings.record)
    _time_reads(url, rows, settings.reads)
    return rows


@contextlib.contextmanager
def _postgresql(db: str | None, say: Say) -> Iterator[DatabaseUrl | None]:
    if db is not None:
        yield parse_database_url(db)
        return
    try:
        from tests import pg_server  # noqa: PLC0415 - the repository's throwaway server
    except ImportError:
        say("PostgreSQL skipped: give --db postgresql://... (tests/pg_server.py not found)")
        yield None
        return
    bindir = pg_server.find_bindir()
    if bindir is None:
        say(f"PostgreSQL skipped: {pg_server.INSTALL_HINT}")
        yield None
        return
    with pg_server.postgres_server(bindir) as server:
        say(f"PostgreSQL: a throwaway server on 127.0.0.1:{server.port}")
        yield parse_database_url(f"postgresql://{server.user}@127.0.0.1:{server.port}/postgres")


def run_storage_bench(settings: StorageBenchSettings, say: Say) -> dict[str, Any]:
    """Every figure, by backend and size."""
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="brandeln-bench-storage-") as folder:
        rows += _measure(sqlite_url(data_folder.ladder_db(Path(folder))), settings, say)
        with _postgresql(settings.db, say) as pg:
            if pg is not None:
                rows += _measure(pg, settings, say)
    ratios = {}
    for backend in {row["backend"] for row in rows}:
        mine = sorted((r for r in rows if r["backend"] == backend), key=lambda r: r["matches"])
        small, large = mine[0], mine[-1]
        ratios[backend] = {
            "ratings_ms": large["ratings_ms_min"] / small["ratings_ms_min"],
            "ratings_ms_median": large["ratings_ms_median"] / small["ratings_ms_median"],
            "blocks_per_s": small["blocks_per_s"] / large["blocks_per_s"],
        }
    return {"settings": asdict(settings) | {"db": None}, "rows": rows, "slowdown": ratios}


def print_storage_figures(figures: dict[str, Any], out: Callable[[str], None]) -> None:
    """The figures as a plain table (``out`` prints one line)."""
    out(
        f"{'backend':<11} {'matches':>9} {'blocks/s':>9} {'results/s':>10} "
        f"{'ratings ms min':>15} {'median':>8} {'fill s':>7}"
    )
    for row in figures["rows"]:
        out(
            f"{row['backend']:<11} {row['matches']:>9,} {row['blocks_per_s']:>9.0f} "
            f"{row['results_per_s']:>10.0f} {row['ratings_ms_min']:>15.2f} "
            f"{row['ratings_ms_median']:>8.2f} {row['fill_s']:>7.1f}"
        )
    for backend, ratio in sorted(figures["slowdown"].items()):
        out(
            f"{backend}: largest vs smallest size: ratings latency x{ratio['ratings_ms']:.2f} "
            f"(min; median x{ratio['ratings_ms_median']:.2f}), recording "
            f"x{ratio['blocks_per_s']:.2f} slower (target: within 2x)"
        )
