"""`brandeln bench season` at a tiny size, and the report of `bench all` (figures, not speed)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from brandeln.bench import report as bench_report
from brandeln.bench.engine import run_benchmarks
from brandeln.bench.montecarlo import run_playout_bench
from brandeln.bench.referee.memory import MemoryBenchSettings, run_memory_bench
from brandeln.bench.referee.own_cost import OwnCostSettings, run_own_cost
from brandeln.cli.main import app

runner = CliRunner()


def test_bench_season_measures_a_season_against_the_referee(tmp_path: Path) -> None:
    out = tmp_path / "season.json"
    result = runner.invoke(app, ["bench", "season", "--quick", "--blocks", "2", "--json", str(out)])
    assert result.exit_code == 0, result.output
    figures = json.loads(out.read_text())
    season = figures["season"]["summary"]
    assert season["deals_per_s"]["median"] > 0
    assert season["log_bytes_per_deal"]["median"] > 0
    assert figures["referee"]["summary"]["decisions_per_s"]["median"] > 0
    assert figures["ratio"]["median"] > 0
    assert "season / referee" in result.output


def test_the_report_lists_every_target_and_marks_missing_figures() -> None:
    figures: dict[str, Any] = {
        "machine": bench_report.machine(),
        "cli": {"runs_ms": [90.0, 110.0], "median_ms": 100.0, "min_ms": 90.0, "max_ms": 110.0},
    }
    figures["targets"] = bench_report.targets(figures)
    by_name = {row["target"]: row for row in figures["targets"]}
    assert by_name["`brandeln --help` start-up, ms"]["met"] is True
    assert by_name["referee p50 at 1 table / floor"]["met"] is None  # not measured
    markdown = bench_report.render_markdown(figures)
    assert "## CLI start-up" in markdown
    assert "not measured" in markdown
    assert len(figures["targets"]) == len(bench_report.TARGETS)


def test_the_report_says_whether_the_interpreter_calls_a_shared_libpython(
    tmp_path: Path,
) -> None:
    maps = tmp_path / "maps"
    maps.write_text("7f00-7f01 r-xp 0 08:01 1 /usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0\n")
    assert bench_report.python_build(maps) == f"{sys.executable}, shared libpython"
    maps.write_text("5600-5601 r-xp 0 08:01 1 /usr/bin/python3.11\n")
    assert bench_report.python_build(maps) == f"{sys.executable}, libpython linked in"
    assert bench_report.python_build(tmp_path / "absent") == sys.executable
    figures: dict[str, Any] = {"machine": bench_report.machine()}
    figures["targets"] = bench_report.targets(figures)
    assert f"({figures['machine']['python_build']})" in bench_report.render_markdown(figures)


def test_cli_startup_times_real_runs() -> None:
    figures = bench_report.cli_startup(repeats=2)
    assert len(figures["runs_ms"]) == 2
    assert figures["min_ms"] <= figures["median_ms"] <= figures["max_ms"]


def test_the_report_shows_engine_montecarlo_and_memory_figures_with_their_targets() -> None:
    memory = MemoryBenchSettings(
        tables=(2, 3), deals_per_match=1, soak_deals=48, soak_tables=2, soak_chunks=3
    )
    figures: dict[str, Any] = {
        "machine": bench_report.machine(),
        "engine": run_benchmarks(seconds=0.05, rounds=2),
        "montecarlo": run_playout_bench(seconds=0.05, rounds=1),
        "memory": asyncio.run(run_memory_bench(memory)),
        "referee_own_cost": {
            key: dataclasses.asdict(
                asyncio.run(
                    run_own_cost(OwnCostSettings(tables=1, matches=1, deals=1, snapshot_only=snap))
                )
            )
            for key, snap in (("normal", False), ("snapshot_only", True))
        },
    }
    assert [row["tables"] for row in figures["memory"]["tables"]] == [2, 3]
    assert all(row["peak_mib"] > 0 for row in figures["memory"]["tables"])
    soak = figures["memory"]["soak"]
    assert len(soak["samples"]) == 3
    assert soak["deals"] == soak["samples"][-1]["deals"] > 0
    playouts = figures["montecarlo"]["playouts_per_second"]
    assert playouts["installed"]["median"] > 0
    assert playouts["pure_python"]["median"] > 0
    figures["targets"] = bench_report.targets(figures)
    by_name = {row["target"]: row for row in figures["targets"]}
    assert by_name["referee RSS growth over the soak, MiB per 1000 deals"]["value"] is not None
    assert by_name["referee decisions/s at 64 tables / floor, snapshot_only"]["met"] is None
    markdown = bench_report.render_markdown(figures)
    for heading in ("## Engine", "## Monte Carlo bot", "## Referee memory", "## The referee's own"):
        assert heading in markdown
    assert "full-length deals, public API" in markdown
    assert "Soak: 48 deals on 2 tables" in markdown


def test_a_target_value_never_reads_as_its_limit_when_it_misses_it() -> None:
    assert bench_report.target_value(0.89597, 0.9) == "0.896"
    assert bench_report.target_value(0.90012, 0.9) == "0.9001"
    assert bench_report.target_value(0.87, 0.9) == "0.87"
    assert bench_report.target_value(3720.3, 4096) == "3,720.30"
    assert bench_report.target_value(0.9, 0.9) == "0.90000"  # met exactly: every digit says so
