"""`brandeln bench season`: a whole season end to end against the bare referee, in one run.

The season part is what an operator runs: an embedded referee, four ``random`` bot processes
(the SDK, real gRPC), the ladder's runner with its SQLite database, match logs and TrueSkill
updates. Its rate is measured between the first and the last finished block, so the bots'
start-up is left out (it is reported apart, as the end-to-end figure).

The reference is the referee benchmark (``brandeln.bench.referee.referee_bench``) at the same number
of tables: instant bots in one load generator, no ladder. Its bots always pass and play the first
legal card, so its deals are longer than random bots' (33 decisions against about 25): the
ratio is therefore taken on decisions per second, i.e. deals per second at equal deal length.
Target: the season runs at >= 0.6x the referee (the ladder, bot processes, logs and ratings
cost at most 40%).

This module composes the arena and the ladder, which is why it lives in the CLI package.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.bench.referee.referee_bench import RefereeBenchSettings, run_referee_bench
from brandeln.ladder.season.config import parse_season
from brandeln.ladder.season.runner import SeasonProgress, run_season
from brandeln.ladder.store.database import LadderStore
from brandeln.services import data_folder

__all__ = ["SEASON_TARGET", "SeasonBenchSettings", "log_figures", "run_season_bench"]

SEASON_TARGET = 0.6  # season decisions/s over the referee's, at the same concurrency

Say = Callable[[str], None]


@dataclass(frozen=True)
class SeasonBenchSettings:
    blocks: int = 6
    deals: int = 8
    concurrency: int = 4
    repeats: int = 3
    seed: int = 11

    @classmethod
    def quick(cls) -> SeasonBenchSettings:
        return cls(blocks=3, repeats=1)


def season_text(settings: SeasonBenchSettings, name: str) -> str:
    bots = "\n".join(
        f'[[bots]]\nname = "random-{n}"\n'
        f'command = ["python", "-m", "brandeln.cli", "bot", "run", "random", "--seed", "{n}"]\n'
        for n in range(1, 5)
    )
    return (
        f'name = "{name}"\nseed = {settings.seed}\nblocks = {settings.blocks}\n'
        f"deals_per_match = {settings.deals}\nconcurrency = {settings.concurrency}\n\n{bots}"
    )


def log_figures(logs_dir: Path) -> dict[str, float]:
    """Deals, decisions and bytes in a folder of match logs."""
    deals = decisions = size = 0
    for path in logs_dir.glob("*.jsonl"):
        size += path.stat().st_size
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record["type"] == "decision":
                decisions += 1
            elif record["type"] == "footer":
                deals += int(record["deals_played"])
    return {
        "deals": deals,
        "decisions": decisions,
        "bytes": size,
        "bytes_per_deal": size / deals if deals else 0.0,
        "decisions_per_deal": decisions / deals if deals else 0.0,
    }


async def _one_season(settings: SeasonBenchSettings, repeat: int) -> dict[str, Any]:
    block_ends: list[tuple[float, int]] = []  # (time, deals so far) as each block finishes

    def progress(update: SeasonProgress) -> None:
        if update.blocks_done > len(block_ends):
            block_ends.append((time.perf_counter(), update.deals))

    with tempfile.TemporaryDirectory(prefix="brandeln-season-bench-") as tmp:
        data = Path(tmp)
        config = parse_season(season_text(settings, f"bench-{repeat}"), "season bench")
        started = time.perf_counter()
        with LadderStore.open(data_folder.ladder_db(data)) as store:
            async with EmbeddedReferee(data) as referee:
                summary = await run_season(
                    config, referee.address, referee.admin_token, store, progress=progress
                )
        wall = time.perf_counter() - started
        logs = log_figures(data_folder.logs_dir(data))
    if len(block_ends) >= 2:
        (t0, d0), (t1, d1) = block_ends[0], block_ends[-1]
        steady_deals, steady_s = d1 - d0, t1 - t0
    else:  # too few blocks to leave the start-up out
        steady_deals, steady_s = summary.deals, wall
    deals_per_s = steady_deals / steady_s if steady_s else 0.0
    return {
        "deals": summary.deals,
        "wall_s": wall,
        "end_to_end_deals_per_s": summary.deals / wall if wall else 0.0,
        "deals_per_s": deals_per_s,
        "decisions_per_s": deals_per_s * logs["decisions_per_deal"],
        "decisions_per_deal": logs["decisions_per_deal"],
        "log_bytes_per_deal": logs["bytes_per_deal"],
    }


def _spread(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


async def run_season_bench(settings: SeasonBenchSettings, say: Say) -> dict[str, Any]:
    """Seasons and the referee benchmark at the same concurrency, alternated per repeat."""
    seasons: list[dict[str, Any]] = []
    referee_runs: list[dict[str, Any]] = []
    referee_settings = RefereeBenchSettings(
        tables=(settings.concurrency,), repeats=1, deals=settings.deals, decisions_per_repeat=3000
    )
    for repeat in range(settings.repeats):
        say(f"repeat {repeat + 1}/{settings.repeats}: a season of {settings.blocks} blocks")
        seasons.append(await _one_season(settings, repeat))
        say(f"repeat {repeat + 1}/{settings.repeats}: the referee at {settings.concurrency} tables")
        figures = await run_referee_bench(referee_settings)
        config = figures["configs"][0]
        decisions = config["referee"]["summary"]["decisions_per_s"]["median"]
        per_deal = figures["script"]["decisions_per_match"] / settings.deals
        referee_runs.append(
            {
                "decisions_per_s": decisions,
                "deals_per_s": decisions / per_deal,
                "decisions_per_deal": per_deal,
            }
        )
    ratios = [
        s["decisions_per_s"] / r["decisions_per_s"]
        for s, r in zip(seasons, referee_runs, strict=True)
        if r["decisions_per_s"]
    ]
    summary = {
        key: _spread([s[key] for s in seasons])
        for key in (
            "deals_per_s",
            "end_to_end_deals_per_s",
            "decisions_per_s",
            "decisions_per_deal",
            "log_bytes_per_deal",
            "wall_s",
        )
    }
    ratio = _spread(ratios)
    return {
        "benchmark": "season",
        "settings": asdict(settings),
        "season": {"summary": summary, "repeats": seasons},
        "referee": {
            "summary": {
                key: _spread([r[key] for r in referee_runs])
                for key in ("decisions_per_s", "deals_per_s", "decisions_per_deal")
            },
            "repeats": referee_runs,
        },
        "ratio": ratio,
        "target": {"limit": SEASON_TARGET, "met": ratio["median"] >= SEASON_TARGET},
    }
