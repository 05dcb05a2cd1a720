"""The OpenSpiel game's benchmark runs briefly and reports every figure (no speed asserted)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyspiel", reason="install the research extra: pip install -e '.[research]'")

from brandeln.bench import report as bench_report
from brandeln.bench.research_envs import GAMES, YARDSTICK, main, markdown, run_research_bench


def test_every_game_is_measured_with_its_ratio_to_oh_hell() -> None:
    figures = run_research_bench(seconds=0.02, rounds=1)
    assert set(figures["games"]) == set(GAMES)
    for name, game in figures["games"].items():
        assert game["steps_per_s"] > 0
        assert game["steps_per_game"] > 0
        assert (name in figures["ratios_to_oh_hell"]) == (name != YARDSTICK)
    text = "\n".join(markdown(figures))
    assert all(f"`{string}`" in text for string in GAMES.values())


def test_main_prints_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "openspiel.json"
    assert main(["--seconds", "0.02", "--rounds", "1", "--json", str(target)]) == 0
    assert "steps/s vs oh_hell" in capsys.readouterr().out
    written = json.loads(target.read_text(encoding="utf-8"))
    assert written["ratios_to_oh_hell"]["brandeln"]["steps_per_s"]["median"] > 0


def test_the_bench_report_has_an_openspiel_section_and_target() -> None:
    figures: dict[str, Any] = {
        "machine": bench_report.machine(),
        "openspiel": run_research_bench(seconds=0.02, rounds=1),
    }
    figures["targets"] = bench_report.targets(figures)
    assert "## OpenSpiel game" in bench_report.render_markdown(figures)
    target = next(t for t in figures["targets"] if t["target"].startswith("OpenSpiel game"))
    assert target["value"] is not None
