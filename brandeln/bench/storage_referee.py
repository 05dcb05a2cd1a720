"""The referee's storage on both backends: `matches list` latency and the recording rate at 1k
and 100k recorded matches (the 100k figures within 2x of the 1k ones: indexes, no full scans),
and what a deal's log costs in the store (the 4 KB per deal target).

Printed figures, not a pass/fail test. PostgreSQL is the database of ``--db URL`` (an empty
one: the bench fills its ``referee`` schema), or, without it, a throwaway server started from
Debian's binaries the way the tests start theirs (``tests/pg_server.py``, in a source tree).

- list latency: ``RefereeStore.matches(limit=20)`` (what ``brandeln matches list`` asks) and
  the same for one bot's matches, median of repeated calls;
- recording rate: matches recorded per second as the referee records them (the running row at
  the start, the finished row at the end), each write its own transaction;
- log bytes per deal: a real season of four random bot processes on an embedded referee of the
  backend; the log bytes, and on PostgreSQL the ``match_logs`` table's size on disk (rows,
  TOAST and index) per deal.
"""

from __future__ import annotations

import contextlib
import json
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from brandeln.services import data_folder

__all__ = ["RefereeStorageBenchSettings", "run_storage_bench"]

Say = Callable[[str], None]
BOTS_IN_POOL = 40
_FILL_BATCH = 5000


@dataclass(frozen=True)
class RefereeStorageBenchSettings:
    sizes: tuple[int, ...] = (1000, 100_000)
    list_calls: int = 50
    recordings: int = 200
    season_blocks: int = 2
    season_deals: int = 8


def _record(n: int, bots: list[str], status: str, started_at: int) -> Any:
    from brandeln.arena.logrecords import MatchStatus  # noqa: PLC0415
    from brandeln.arena.store.database import MatchRecord  # noqa: PLC0415

    seats = tuple(bots[(n + k * 7) % len(bots)] for k in range(4))
    return MatchRecord(
        match_id=f"m_{n:016x}",
        ruleset="standard",
        bot_ids=seats,
        bot_names=tuple(f"name-{b}" for b in seats),
        balances=(12, -4, -4, -4),
        ranks=(1, 2, 2, 2),
        forfeited=(),
        strikes=(0, 0, 0, 0),
        status=MatchStatus(status),
        deals_played=8,
        started_at=started_at,
        ended_at=started_at + 1000,
        log_path=f"match_logs:m_{n:016x}",
    )


def _fill(store: Any, start: int, stop: int, bots: list[str]) -> None:
    """Matches ``start`` to ``stop`` in bulk (the index rows as record_match writes them)."""
    from brandeln.arena.store.match_index import match_row  # noqa: PLC0415
    from brandeln.arena.store.schema import MATCH_BOTS, MATCHES  # noqa: PLC0415

    for first in range(start, stop, _FILL_BATCH):
        records = [
            _record(n, bots, "finished", 1_700_000_000_000 + n)
            for n in range(first, min(stop, first + _FILL_BATCH))
        ]
        with store.engine.begin() as conn:
            conn.execute(
                MATCHES.insert(), [match_row(r) | {"referee_id": "bench"} for r in records]
            )
            conn.execute(
                MATCH_BOTS.insert(),
                [
                    {"match_id": r.match_id, "bot_id": b, "started_at": r.started_at}
                    for r in records
                    for b in set(r.bot_ids)
                ],
            )


def _median_ms(call: Callable[[], object], times: int) -> float:
    samples = []
    for _ in range(times):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def _measure(
    store: Any, size: int, bots: list[str], settings: RefereeStorageBenchSettings
) -> dict[str, Any]:
    store.reads.matches(limit=20)  # warm the cache: the figures are of a running referee
    newest = _median_ms(lambda: store.reads.matches(limit=20), settings.list_calls)
    by_bot = _median_ms(lambda: store.reads.matches(bot_id=bots[3], limit=20), settings.list_calls)
    base = 10_000_000 + size  # ids past the filled ones
    started = time.perf_counter()
    for n in range(base, base + settings.recordings):
        store.record_match(_record(n, bots, "running", 1_800_000_000_000 + n))
        store.record_match(_record(n, bots, "finished", 1_800_000_000_000 + n))
    rate = settings.recordings / (time.perf_counter() - started)
    return {"matches": size, "list_ms": newest, "list_by_bot_ms": by_bot, "recorded_per_s": rate}


def _season_log_figures(
    database: str | None, data: Path, settings: RefereeStorageBenchSettings
) -> dict[str, float]:
    """A real season on an embedded referee of the backend; the log bytes per deal."""
    import asyncio  # noqa: PLC0415

    from brandeln.arena.embedded import EmbeddedReferee  # noqa: PLC0415
    from brandeln.bench.season import SeasonBenchSettings, season_text  # noqa: PLC0415
    from brandeln.ladder.season.config import parse_season  # noqa: PLC0415
    from brandeln.ladder.season.runner import run_season  # noqa: PLC0415
    from brandeln.ladder.store.database import LadderStore  # noqa: PLC0415

    season = SeasonBenchSettings(blocks=settings.season_blocks, deals=settings.season_deals)
    config = parse_season(season_text(season, "storage-bench"), "storage bench")

    async def play() -> int:
        with LadderStore.open(data_folder.ladder_db(data)) as ladder:
            async with EmbeddedReferee(data / "referee", database=database) as referee:
                summary = await run_season(config, referee.address, referee.admin_token, ladder)
                return summary.deals

    deals = asyncio.run(play())
    if database is None:
        size = sum(p.stat().st_size for p in data_folder.logs_dir(data / "referee").glob("*.jsonl"))
        return {
            "deals": deals,
            "log_bytes_per_deal": size / deals,
            "stored_bytes_per_deal": size / deals,
        }
    from brandeln.arena.store.database import RefereeStore  # noqa: PLC0415

    store = RefereeStore(database)
    try:
        with store.engine.connect() as conn:
            body = conn.exec_driver_sql("SELECT sum(length(body)) FROM referee.match_logs").scalar()
            disk = conn.exec_driver_sql(
                "SELECT pg_total_relation_size('referee.match_logs')"
            ).scalar()
    finally:
        store.close()
    return {
        "deals": deals,
        "log_bytes_per_deal": int(body or 0) / deals,
        "stored_bytes_per_deal": int(disk or 0) / deals,
    }


@contextlib.contextmanager
def _postgresql(url: str | None, say: Say) -> Iterator[tuple[str, str] | None]:
    """Two empty databases' URLs (the season's and the fill's): in ``url``'s server, or a
    throwaway server's; None where there is neither."""
    if url is not None:
        yield url, url
        return
    try:
        from tests import pg_server  # noqa: PLC0415 - a source tree's helper
    except ImportError:
        say("no --db and no tests/pg_server.py: PostgreSQL is left out")
        yield None
        return
    bindir = pg_server.find_bindir()
    if bindir is None:
        say(pg_server.INSTALL_HINT)
        yield None
        return
    import psycopg  # noqa: PLC0415

    with pg_server.postgres_server(bindir) as server:
        with psycopg.connect(
            host=server.host, port=server.port, user=server.user, dbname="postgres", autocommit=True
        ) as admin:
            admin.execute("CREATE DATABASE bench_season")
            admin.execute("CREATE DATABASE bench_fill")
        base = f"postgresql://{server.user}@{server.host}:{server.port}"
        yield f"{base}/bench_season", f"{base}/bench_fill"


def run_storage_bench(
    settings: RefereeStorageBenchSettings, db: str | None, say: Say
) -> dict[str, Any]:
    from brandeln.arena.store.database import RefereeStore  # noqa: PLC0415

    figures: dict[str, Any] = {"backends": {}}
    with (
        tempfile.TemporaryDirectory(prefix="brandeln-storage-bench-") as tmp,
        _postgresql(db, say) as pg,
    ):
        backends: list[tuple[str, str | None, str]] = [("sqlite", None, str(Path(tmp) / "fill.db"))]
        if pg is not None:
            backends.append(("postgresql", pg[0], pg[1]))
        for name, season_db, fill_db in backends:
            say(f"{name}: a season of random bots (log bytes per deal)")
            logs = _season_log_figures(season_db, Path(tmp) / f"season-{name}", settings)
            store = RefereeStore(fill_db, Path(tmp) / "fill-logs")
            try:
                bots = [store.register_bot(f"bench-{n}")[0].bot_id for n in range(BOTS_IN_POOL)]
                rows = []
                filled = 0
                for size in settings.sizes:
                    say(f"{name}: filling to {size} matches")
                    _fill(store, filled, size, bots)
                    filled = size
                    rows.append(_measure(store, size, bots, settings))
            finally:
                store.close()
            figures["backends"][name] = {"logs": logs, "sizes": rows}
    return figures


def print_storage_figures(figures: dict[str, Any]) -> None:
    from rich import box  # noqa: PLC0415
    from rich.table import Table  # noqa: PLC0415

    from brandeln.bench.output import console  # noqa: PLC0415

    table = Table(title="referee storage", box=box.SIMPLE_HEAD)
    for header in ("backend", "matches", "list ms", "list by bot ms", "recorded/s"):
        table.add_column(header, justify="right")
    for name, backend in figures["backends"].items():
        for row in backend["sizes"]:
            table.add_row(
                name,
                f"{row['matches']:,}",
                f"{row['list_ms']:.2f}",
                f"{row['list_by_bot_ms']:.2f}",
                f"{row['recorded_per_s']:.0f}",
            )
    console.print(table)
    for name, backend in figures["backends"].items():
        sizes = backend["sizes"]
        if len(sizes) >= 2:
            first, last = sizes[0], sizes[-1]
            ratios = [
                last[key] / first[key] if first[key] else 0.0
                for key in ("list_ms", "list_by_bot_ms")
            ] + [
                first["recorded_per_s"] / last["recorded_per_s"] if last["recorded_per_s"] else 0.0
            ]
            worst = max(ratios)
            met = "[green]met[/green]" if worst <= 2 else "[red]missed[/red]"
            console.print(
                f"{name}: {last['matches']:,} vs {first['matches']:,} matches, worst slowdown "
                f"{worst:.2f}x (target <= 2x): {met}"
            )
        logs = backend["logs"]
        console.print(
            f"{name}: match log {logs['log_bytes_per_deal']:.0f} bytes per deal, "
            f"{logs['stored_bytes_per_deal']:.0f} bytes per deal in the store "
            f"({logs['deals']} deals; target <= 4096)"
        )


def write_json(path: Path, figures: dict[str, Any]) -> None:
    path.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
