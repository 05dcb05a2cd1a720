"""The benchmark command runs, reports every figure and writes them as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brandeln.bench.engine import main, run_benchmarks


def test_run_benchmarks_reports_every_figure() -> None:
    figures = run_benchmarks(seconds=0.02, rounds=2)
    for section in ("public_api", "fast_path", "public_api_full_length", "fast_path_full_length"):
        assert figures[section]["deals_per_second"] > 0
    assert figures["legal_moves"]["generations_per_second"] > 0
    assert "open_spiel_oh_hell" in figures


def test_main_prints_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "bench.json"
    assert main(["--seconds", "0.02", "--rounds", "1", "--json", str(target)]) == 0
    out = capsys.readouterr().out
    assert "public API, random deals/s" in out
    assert "OpenSpiel oh_hell" in out
    written = json.loads(target.read_text(encoding="utf-8"))
    assert written["ruleset"] == "standard"
    assert written["fast_path"]["deals_per_second"] > 0
    assert written["rounds"] == 1
