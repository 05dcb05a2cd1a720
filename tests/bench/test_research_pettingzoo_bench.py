"""The PettingZoo benchmark runs briefly and reports every game, or why one was left out."""

from __future__ import annotations

import doctest
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pettingzoo", reason="install the research extra: pip install -e '.[research]'")

from brandeln.bench import report as bench_report
from brandeln.bench import research_pettingzoo
from brandeln.bench.research_pettingzoo import (
    BRANDELN,
    CLASSIC_CARD_GAMES,
    ENGINE_ALONE,
    main,
    markdown,
    run_pettingzoo_bench,
)


def test_every_game_is_measured_or_said_to_be_missing() -> None:
    figures = run_pettingzoo_bench(seconds=0.02, rounds=1)
    games, missing = figures["games"], figures["unavailable"]
    assert games[BRANDELN]["steps_per_s"] > 0
    assert games[ENGINE_ALONE]["steps_per_episode"] > 0
    for name in CLASSIC_CARD_GAMES:
        assert (name in games) != (name in missing)
        assert name in "\n".join(markdown(figures))


def test_main_prints_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "pettingzoo.json"
    assert main(["--seconds", "0.02", "--rounds", "1", "--json", str(target)]) == 0
    assert "`brandeln_v0`" in capsys.readouterr().out
    written = json.loads(target.read_text(encoding="utf-8"))
    assert written["brandeln_per_other"][BRANDELN] == 1.0


def test_the_bench_report_has_a_pettingzoo_section() -> None:
    figures: dict[str, Any] = {
        "machine": bench_report.machine(),
        "pettingzoo": run_pettingzoo_bench(seconds=0.02, rounds=1),
    }
    figures["targets"] = bench_report.targets(figures)
    assert "## PettingZoo environment" in bench_report.render_markdown(figures)


def test_docstring_examples() -> None:
    result = doctest.testmod(research_pettingzoo)
    assert result.attempted > 0
    assert result.failed == 0
