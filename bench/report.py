"""`brandeln bench all`: every benchmark in one run, written as one report (Markdown and JSON).

Each figure carries its median and spread over repeats, and every ratio is computed within the
run: the machines are noisy, so absolute times drift but side-by-side ratios hold.
"""

from __future__ import annotations

import datetime
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["TARGETS", "RssSampler", "cli_startup", "render_markdown"]

Say = Callable[[str], None]

# (name, where the ratio sits in the figures, limit, at_most)
TARGETS: tuple[tuple[str, tuple[str, ...], float, bool], ...] = (
    (
        "engine random deals/s vs OpenSpiel oh_hell (fast path)",
        ("engine", "median_ratios_to_oh_hell", "fast_path"),
        2.0,
        False,
    ),
    (
        "engine random deals/s vs OpenSpiel oh_hell (public API)",
        ("engine", "median_ratios_to_oh_hell", "public_api"),
        2.0,
        False,
    ),
    ("referee p50 at 1 table / floor", ("referee", "ratio_p50_1"), 1.25, True),
    ("referee decisions/s at 16 tables / floor", ("referee", "ratio_decisions_16"), 0.8, False),
    ("season / referee (decisions/s, same tables)", ("season", "ratio", "median"), 0.6, False),
    (
        "match log bytes per full-length deal",
        ("referee", "log_bytes_per_deal"),
        4096,
        True,
    ),
    ("`brandeln --help` start-up, ms", ("cli", "median_ms"), 150, True),
)


def cli_startup(repeats: int = 10) -> dict[str, Any]:
    """Wall time of ``brandeln --help`` in a fresh process, ``repeats`` times."""
    command = [sys.executable, "-m", "brandeln_cli", "--help"]
    subprocess.run(command, capture_output=True, check=True)  # warm the file cache once
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True)
        times.append((time.perf_counter() - started) * 1000)
    return {
        "command": "brandeln --help",
        "runs_ms": times,
        "median_ms": statistics.median(times),
        "min_ms": min(times),
        "max_ms": max(times),
    }


class RssSampler:
    """The peak resident memory of this process while it runs (a thread samples /proc)."""

    def __init__(self, interval_s: float = 0.05) -> None:
        self.interval_s = interval_s
        self.peak_kib = self.start_kib = _rss_kib()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.peak_kib = max(self.peak_kib, _rss_kib())

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak_kib = max(self.peak_kib, _rss_kib())


def _rss_kib() -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    import resource  # noqa: PLC0415 - a fallback where /proc is missing (peak, not current)

    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def lookup(figures: dict[str, Any], path: tuple[str, ...]) -> float | None:
    node: Any = figures
    for key in path:
        if not isinstance(node, dict) or node.get(key) is None:
            return None
        node = node[key]
    return float(node) if isinstance(node, int | float) else None


def targets(figures: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for name, path, limit, at_most in TARGETS:
        value = lookup(figures, path)
        met = None if value is None else (value <= limit if at_most else value >= limit)
        rows.append(
            {"target": name, "value": value, "limit": limit, "at_most": at_most, "met": met}
        )
    return rows


def machine() -> dict[str, Any]:
    return {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }


def _m(spread: dict[str, float] | None, fmt: str = "{:,.0f}") -> str:
    if not spread:
        return "-"
    median, low, high = spread["median"], spread["min"], spread["max"]
    half = (high - low) / 2 / median * 100 if median else 0.0
    return f"{fmt.format(median)} ±{half:.0f}%"


def render_markdown(figures: dict[str, Any]) -> str:
    """The report as Markdown: one table per benchmark, then the targets."""
    lines = [
        "# Brandeln Arena benchmarks",
        "",
        f"Machine: {figures['machine']['cpus']} CPUs, Python {figures['machine']['python']}, "
        f"{figures['machine']['platform']}; {figures['machine']['date']}. Figures are medians "
        "±half their range over the repeats; every ratio comes from the same run.",
        "",
    ]
    engine = figures.get("engine")
    if engine:
        spread = engine["spread"]
        lines += ["## Engine (one core)", "", "| figure | per second |", "|---|---|"]
        for key, label in (
            ("public_api", "random deals, public API"),
            ("fast_path", "random deals, fast playout path"),
            ("public_api_full_length", "full-length deals, public API"),
            ("fast_path_full_length", "full-length deals, fast path"),
            ("legal_moves", "legal-move generations"),
            ("open_spiel_oh_hell", "OpenSpiel oh_hell random deals"),
        ):
            lines.append(f"| {label} | {_m(spread.get(key))} |")
        if "median_ratios_to_oh_hell" in engine:
            ratios = engine["median_ratios_to_oh_hell"]
            lines.append(
                f"\nRatio to OpenSpiel `oh_hell`: public API {ratios['public_api']:.2f}x, "
                f"fast path {ratios['fast_path']:.2f}x."
            )
        else:
            lines.append("\nOpenSpiel is not installed here (`pip install open_spiel`).")
        lines.append("")
    referee = figures.get("referee")
    if referee:
        lines += [
            "## Referee against its floor",
            "",
            "Four instant bots per table over loopback gRPC; the floor sends the same messages "
            "with no rules, logs or checks.",
            "",
            "| tables | server | decisions/s | p50 ms | p99 ms | CPU ms/decision |",
            "|---|---|---|---|---|---|",
        ]
        for config in referee["configs"]:
            for side in ("referee", "floor"):
                s = config[side]["summary"]
                lines.append(
                    f"| {config['tables']} | {side} | {_m(s['decisions_per_s'])} | "
                    f"{_m(s['p50_ms'], '{:.3f}')} | {_m(s['p99_ms'], '{:.2f}')} | "
                    f"{_m(s['cpu_ms_per_decision'], '{:.3f}')} |"
                )
            r = config["ratios"]
            lines.append(
                f"| {config['tables']} | ratio | {_m(r['decisions_per_s'], '{:.2f}')} | "
                f"{_m(r['p50_ms'], '{:.2f}')} | {_m(r['p99_ms'], '{:.2f}')} | "
                f"{_m(r['cpu_ms_per_decision'], '{:.2f}')} |"
            )
        lines.append(
            f"\nMatch log per deal played to its last trick: "
            f"{referee.get('log_bytes_per_deal', 0):,.0f} bytes."
        )
        memory = figures.get("memory")
        if memory:
            lines.append(
                f"\nReferee process memory: {memory['start_mib']:.0f} MiB at start, peak "
                f"{memory['peak_mib']:.0f} MiB through the runs up to {memory['tables']} tables."
            )
        lines.append("")
    season = figures.get("season")
    if season:
        s = season["season"]["summary"]
        r = season["referee"]["summary"]
        lines += [
            "## Season end to end",
            "",
            "| figure | value |",
            "|---|---|",
            f"| season deals/s (between first and last block) | {_m(s['deals_per_s'], '{:.1f}')} |",
            f"| season deals/s including bot start-up | "
            f"{_m(s['end_to_end_deals_per_s'], '{:.1f}')} |",
            f"| season decisions/s | {_m(s['decisions_per_s'])} |",
            f"| referee decisions/s, same tables | {_m(r['decisions_per_s'])} |",
            f"| season / referee | {_m(season['ratio'], '{:.2f}')} |",
            f"| match log bytes per deal (random bots' deals) | {_m(s['log_bytes_per_deal'])} |",
            "",
        ]
    storage = figures.get("storage")
    if storage:
        lines += [
            "## Ladder storage",
            "",
            "| backend | matches | blocks recorded/s | results/s | ratings ms (min) | median |",
            "|---|---|---|---|---|---|",
        ]
        for row in storage["rows"]:
            lines.append(
                f"| {row['backend']} | {row['matches']:,} | {row['blocks_per_s']:,.0f} | "
                f"{row['results_per_s']:,.0f} | {row['ratings_ms_min']:.2f} | "
                f"{row['ratings_ms_median']:.2f} |"
            )
        for backend, ratio in sorted(storage["slowdown"].items()):
            lines.append(
                f"\n{backend}: largest vs smallest size, ratings latency x"
                f"{ratio['ratings_ms']:.2f}, recording x{ratio['blocks_per_s']:.2f} slower "
                "(target: within 2x)."
            )
        lines.append("")
    cli = figures.get("cli")
    if cli:
        lines += [
            "## CLI start-up",
            "",
            f"`brandeln --help`: median {cli['median_ms']:.0f} ms "
            f"(min {cli['min_ms']:.0f}, max {cli['max_ms']:.0f}) over {len(cli['runs_ms'])} runs.",
            "",
        ]
    lines += ["## Targets", "", "| target | value | limit | met |", "|---|---|---|---|"]
    for row in figures["targets"]:
        value = "-" if row["value"] is None else f"{row['value']:,.2f}"
        limit = ("<= " if row["at_most"] else ">= ") + f"{row['limit']:g}"
        met = {True: "yes", False: "**no**", None: "not measured"}[row["met"]]
        lines.append(f"| {row['target']} | {value} | {limit} | {met} |")
    return "\n".join(lines) + "\n"
