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

from brandeln.bench.montecarlo import BASELINES

__all__ = ["TARGETS", "RssSampler", "cli_startup", "render_markdown", "rss_kib"]

Say = Callable[[str], None]

# (name, where the ratio sits in the figures, limit, at_most)
TARGETS: tuple[tuple[str, tuple[str, ...], float, bool], ...] = (
    (
        "engine full-length deals/s vs OpenSpiel oh_hell (public API)",
        ("engine", "median_ratios_to_oh_hell", "public_api_full_length"),
        2.0,
        False,
    ),
    (
        "engine full-length deals/s vs OpenSpiel oh_hell (fast path)",
        ("engine", "median_ratios_to_oh_hell", "fast_path_full_length"),
        5.0,
        False,
    ),
    *(
        (
            f"referee decisions/s at {tables} table{'s' if tables > 1 else ''} / floor{label}",
            (key, "decision_ratios", str(tables)),
            0.9,
            False,
        )
        for key, label in (("referee", ""), ("referee_snapshot_only", ", snapshot_only"))
        for tables in (1, 16, 64)
    ),
    ("referee p50 at 1 table / floor", ("referee", "ratio_p50_1"), 1.25, True),
    ("season / referee (decisions/s, same tables)", ("season", "ratio", "median"), 0.6, False),
    (
        "referee RSS growth over the soak, MiB per 1000 deals",
        ("memory", "soak", "growth_mib_per_1000_deals"),
        0.5,
        True,
    ),
    (
        "match log bytes per full-length deal",
        ("referee", "log_bytes_per_deal"),
        4096,
        True,
    ),
    (
        "OpenSpiel game steps/s vs OpenSpiel oh_hell (pyspiel API)",
        ("openspiel", "ratios_to_oh_hell", "brandeln", "steps_per_s", "median"),
        0.5,
        False,
    ),
    ("`brandeln --help` start-up, ms", ("cli", "median_ms"), 150, True),
)


def cli_startup(repeats: int = 10) -> dict[str, Any]:
    """Wall time of ``brandeln --help`` in a fresh process, ``repeats`` times."""
    command = [sys.executable, "-m", "brandeln.cli", "--help"]
    # Warm the file cache once, and the bytecode cache as any user's first run does: where the
    # environment says PYTHONDONTWRITEBYTECODE (this project's CI machines do), every run
    # would compile the CLI's sources again, 20-30 ms that no installed user pays twice.
    writes_bytecode = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(command, capture_output=True, check=True, env=writes_bytecode)
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
        self.peak_kib = self.start_kib = rss_kib()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.peak_kib = max(self.peak_kib, rss_kib())

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak_kib = max(self.peak_kib, rss_kib())


def rss_kib() -> int:
    """This process's resident memory now (VmRSS), in KiB."""
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
        "python_build": python_build(),
        "platform": platform.platform(),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }


def python_build(maps: Path = Path("/proc/self/maps")) -> str:
    """The interpreter and whether it calls a shared ``libpython``: on this project's machine
    that alone made the referee's own work about a fifth slower than an interpreter with
    ``libpython`` linked in (README, "The interpreter counts"), so a report says which ran.
    Read from what the process has mapped, which the build's own configuration cannot be
    trusted to say (Debian's reports a shared build for its linked-in interpreter)."""
    try:
        mapped = maps.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return sys.executable  # no /proc: not Linux
    linked = "shared libpython" if "/libpython" in mapped else "libpython linked in"
    return f"{sys.executable}, {linked}"


def target_value(value: float, limit: float) -> str:
    """``value`` to two decimals, or as many more as it takes not to read as its limit: a
    ratio of 0.896 against 0.9 shows as 0.896, not as a 0.90 marked "no"."""
    for digits in range(2, 6):
        text = f"{value:,.{digits}f}"
        if f"{limit:,.{digits}f}" != text:
            return text
    return text


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
        f"Machine: {figures['machine']['cpus']} CPUs, Python {figures['machine']['python']} "
        f"({figures['machine'].get('python_build', '?')}), "
        f"{figures['machine']['platform']}; {figures['machine']['date']}. Figures are medians "
        "±half their range over the repeats; every ratio comes from the same run.",
        "",
    ]
    engine = figures.get("engine")
    if engine:
        spread = engine["spread"]
        compiled = engine.get("compiled_modules") or []
        core = f"compiled core ({len(compiled)} modules, mypyc)" if compiled else "pure Python"
        lines += [
            f"## Engine (one core, {core})",
            "",
            "| figure | per second | / OpenSpiel `oh_hell` |",
            "|---|---|---|",
        ]
        ratios = engine.get("ratio_spread", {})
        for key, label in (
            ("public_api_full_length", "full-length deals, public API"),
            ("fast_path_full_length", "full-length deals, fast path"),
            ("public_api", "random deals (sudden death ends some early), public API"),
            ("fast_path", "random deals, fast path"),
            ("legal_moves", "legal-move generations"),
            ("open_spiel_oh_hell", "OpenSpiel `oh_hell` deals (always every trick)"),
        ):
            ratio = _m(ratios[key], "{:.2f}x") if key in ratios else ""
            lines.append(f"| {label} | {_m(spread.get(key))} | {ratio} |")
        if not ratios:
            lines.append("\nOpenSpiel is not installed here (`pip install open_spiel`).")
        else:
            lines.append(
                "\nLike with like: the full-length rows (`early_stop = never`) against "
                "OpenSpiel's full hands; each ratio is the median of per-round ratios, the "
                "figures taking turns in 50 ms slices."
            )
        lines.append("")
    montecarlo = figures.get("montecarlo")
    if montecarlo:
        playouts = montecarlo["playouts_per_second"]
        lines += [
            "## Monte Carlo bot",
            "",
            f"Playouts/s (greedy policy, brand from the first lead): engine as installed "
            f"{_m(playouts['installed'])}, its pure-Python reference "
            f"{_m(playouts['pure_python'])}; ratio "
            f"{montecarlo['ratios']['installed/pure_python']:.2f}x.",
            "",
        ]
        strength = montecarlo.get("strength")
        if strength:
            low, high = strength["interval95"]
            lines += [
                f"Strength at the same time budget (`brandeln ab`, move_ms "
                f"{strength['move_ms']}, seed {strength['seed']}): as installed against "
                f"{BASELINES[strength['baseline']]}, "
                f"**{strength['chips_per_deal']:+.2f} chips/deal** "
                f"(95% interval {low:+.2f} .. {high:+.2f}) over {strength['deals']} duplicate "
                "deals, every other seat the reference.",
                "",
            ]
    for key, title in (
        ("referee", "Referee against its floor"),
        ("referee_snapshot_only", "Referee against its floor, snapshot_only seats"),
    ):
        referee = figures.get(key)
        if not referee:
            continue
        lines += [
            f"## {title}",
            "",
            "Four instant bots per table over loopback gRPC; the floor sends the same messages "
            "with no rules, logs or checks. CPU is the server process's, per decision.",
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
        if key == "referee":
            lines.append(
                f"\nMatch log per deal played to its last trick: "
                f"{referee.get('log_bytes_per_deal', 0):,.0f} bytes."
            )
        lines.append("")
    own = figures.get("referee_own_cost")
    if own:
        lines += [
            "## The referee's own cost",
            "",
            "The referee alone, no gRPC (`python -m brandeln.bench.referee.own_cost`): 16 tables, "
            "each session answered in-process with its first legal choice. CPU per decision: "
            f"{own['normal']['cpu_us_per_decision']:.1f} µs with every event sent, "
            f"{own['snapshot_only']['cpu_us_per_decision']:.1f} µs with snapshot_only seats.",
            "",
        ]
    memory = figures.get("memory")
    if memory:
        lines += [
            "## Referee memory",
            "",
            "Resident memory (VmRSS) of the process running the embedded referee.",
            "",
            "| tables at once | connected MiB | peak playing MiB |",
            "|---|---|---|",
        ]
        for row in memory["tables"]:
            lines.append(
                f"| {row['tables']} | {row['connected_mib']:.0f} | {row['peak_mib']:.0f} |"
            )
        soak = memory["soak"]
        lines.append(
            f"\nSoak: {soak['deals']:,} deals on {soak['tables']} tables: "
            f"{soak['first_chunk_mib']:.1f} MiB after the first tenth, "
            f"{soak['end_mib']:.1f} MiB at the end ({soak['growth_mib']:+.1f} MiB, "
            f"{soak['growth_mib_per_1000_deals']:+.2f} MiB per 1000 deals); samples: "
            + ", ".join(f"{x['rss_mib']:.1f}" for x in soak["samples"])
            + " MiB."
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
    pettingzoo = figures.get("pettingzoo")
    if pettingzoo:
        from brandeln.bench.research_pettingzoo import markdown  # noqa: PLC0415 - the research extra

        lines += markdown(pettingzoo)
    openspiel = figures.get("openspiel")
    if openspiel:
        from brandeln.bench import research_envs  # noqa: PLC0415 - the research extra

        lines += research_envs.markdown(openspiel)
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
        value = "-" if row["value"] is None else target_value(row["value"], row["limit"])
        limit = ("<= " if row["at_most"] else ">= ") + f"{row['limit']:g}"
        met = {True: "yes", False: "**no**", None: "not measured"}[row["met"]]
        lines.append(f"| {row['target']} | {value} | {limit} | {met} |")
    return "\n".join(lines) + "\n"
