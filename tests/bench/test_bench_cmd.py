"""`brandeln bench season` at a tiny size, and the report of `bench all` (figures, not speed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from bench import report as bench_report
from brandeln_cli.main import app

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


def test_cli_startup_times_real_runs() -> None:
    figures = bench_report.cli_startup(repeats=2)
    assert len(figures["runs_ms"]) == 2
    assert figures["min_ms"] <= figures["median_ms"] <= figures["max_ms"]
