"""The referee's memory: its resident set at many tables at once, and over a long soak.

``run_memory_bench`` starts an embedded referee in this process (as the referee benchmark
does), connects four load-generator bots per table over loopback gRPC and plays, measuring
this process's resident memory (VmRSS): its peak while ``tables`` tables play at once, for
each table count; then a soak of ``soak_deals`` deals on ``soak_tables`` tables, in chunks,
with the resident memory after each chunk, so that growth across many deals shows.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.bench.referee.referee_bench import PLAYERS, LoadGenProcess, Progress, _Admin
from brandeln.bench.report import RssSampler, rss_kib

__all__ = ["MemoryBenchSettings", "run_memory_bench"]


@dataclass(frozen=True)
class MemoryBenchSettings:
    tables: tuple[int, ...] = (64, 256)
    deals_per_match: int = 2  # at many tables: a short match per table is enough to fill them
    soak_deals: int = 10_000
    soak_tables: int = 16
    soak_chunks: int = 10
    soak_deals_per_match: int = 8
    seed: int = 7


def _request(deals: int, seed: int) -> dict[str, Any]:
    return {"ruleset": "standard", "deals": deals, "seed": seed, "summary_updates": True}


async def _tables_up(
    admin: _Admin, referee: EmbeddedReferee, tables: int, prefix: str
) -> tuple[LoadGenProcess, list[list[str]]]:
    ids, tokens = await admin.register([f"{prefix}-{n:04d}" for n in range(PLAYERS * tables)])
    loadgen = await LoadGenProcess.start(referee.address, tokens, snapshot_only=False)
    await admin.wait_for_sessions(ids, timeout=120.0)
    await loadgen.drive_admin(referee.address, referee.admin_token)
    return loadgen, [ids[t * PLAYERS : (t + 1) * PLAYERS] for t in range(tables)]


async def run_memory_bench(
    settings: MemoryBenchSettings, progress: Progress | None = None
) -> dict[str, Any]:
    """Every figure, JSON-ready (see the module docstring)."""
    say = progress or (lambda _text: None)
    figures: dict[str, Any] = {"settings": asdict(settings), "tables": []}
    with tempfile.TemporaryDirectory(prefix="brandeln-memory-") as data_dir:
        async with EmbeddedReferee(Path(data_dir)) as referee:
            admin = _Admin(referee.address, referee.admin_token)
            try:
                figures["start_mib"] = rss_kib() / 1024
                for tables in settings.tables:
                    say(f"memory: {tables} tables at once ({PLAYERS * tables} bot streams)")
                    loadgen, seatings = await _tables_up(admin, referee, tables, f"m{tables}")
                    try:
                        idle = rss_kib() / 1024  # every stream connected, no match yet
                        with RssSampler(0.02) as rss:
                            await loadgen.run_matches(
                                seatings, 1, _request(settings.deals_per_match, settings.seed)
                            )
                    finally:
                        await loadgen.close()
                    figures["tables"].append(
                        {
                            "tables": tables,
                            "connected_mib": idle,
                            "peak_mib": rss.peak_kib / 1024,
                            "after_mib": rss_kib() / 1024,
                        }
                    )
                figures["soak"] = await _soak(admin, referee, settings, say)
            finally:
                await admin.close()
    return figures


async def _soak(
    admin: _Admin, referee: EmbeddedReferee, settings: MemoryBenchSettings, say: Progress
) -> dict[str, Any]:
    tables, per_match = settings.soak_tables, settings.soak_deals_per_match
    matches = max(1, round(settings.soak_deals / (tables * per_match * settings.soak_chunks)))
    loadgen, seatings = await _tables_up(admin, referee, tables, "soak")
    samples: list[dict[str, float]] = []
    deals = 0
    started = time.perf_counter()
    try:
        for chunk in range(settings.soak_chunks):
            await loadgen.run_matches(seatings, matches, _request(per_match, settings.seed + chunk))
            deals += tables * matches * per_match
            samples.append(
                {"deals": deals, "rss_mib": rss_kib() / 1024, "s": time.perf_counter() - started}
            )
            say(f"soak: {deals} deals, RSS {samples[-1]['rss_mib']:.1f} MiB")
    finally:
        await loadgen.close()
    # Growth after the first chunk: the first fills caches and pools that then stay.
    first, last = samples[0], samples[-1]
    per_thousand = (
        (last["rss_mib"] - first["rss_mib"]) / (last["deals"] - first["deals"]) * 1000
        if last["deals"] > first["deals"]
        else 0.0
    )
    return {
        "tables": tables,
        "deals": deals,
        "samples": samples,
        "first_chunk_mib": first["rss_mib"],
        "end_mib": last["rss_mib"],
        "growth_mib": last["rss_mib"] - first["rss_mib"],
        "growth_mib_per_1000_deals": per_thousand,
        "median_mib": statistics.median(s["rss_mib"] for s in samples),
        "deals_per_s": deals / (time.perf_counter() - started),
    }


def report(figures: dict[str, Any]) -> str:
    lines = [f"referee memory (this process, VmRSS): {figures['start_mib']:.0f} MiB at start"]
    for row in figures["tables"]:
        lines.append(
            f"  {row['tables']:>4} tables: {row['connected_mib']:.0f} MiB connected, "
            f"peak {row['peak_mib']:.0f} MiB playing"
        )
    soak = figures["soak"]
    lines.append(
        f"  soak: {soak['deals']:,} deals on {soak['tables']} tables: "
        f"{soak['first_chunk_mib']:.1f} MiB after the first chunk, {soak['end_mib']:.1f} MiB "
        f"at the end: {soak['growth_mib']:+.1f} MiB "
        f"({soak['growth_mib_per_1000_deals']:+.2f} MiB per 1000 deals)"
    )
    return "\n".join(lines)
