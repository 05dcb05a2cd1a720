"""The timed benchmarks' shared command line: options passed through, figures printed and
written as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brandeln.bench.timed_command import Figures, timed_bench_main


def test_the_options_reach_the_run_and_the_figures_the_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def run(seconds: float, rounds: int) -> Figures:
        return {"seconds": seconds, "rounds": rounds}

    def render(figures: Figures) -> list[str]:
        return [f"{figures['rounds']} rounds of {figures['seconds']} s"]

    out = tmp_path / "figures.json"
    argv = ["--seconds", "0.5", "--rounds", "2", "--json", str(out)]
    assert timed_bench_main("bench", None, run, render, argv) == 0
    assert capsys.readouterr().out == "2 rounds of 0.5 s\n"
    assert json.loads(out.read_text()) == {"seconds": 0.5, "rounds": 2}
