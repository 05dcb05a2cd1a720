"""`python -m brandeln.bench.montecarlo`: the strength run through a real referee, and its
report."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from brandeln.bench import report as bench_report
from brandeln.bench.montecarlo import (
    ROOT,
    baseline_command,
    main,
    run_strength_bench,
    strength_report,
)


def test_the_strength_run_plays_its_deals_through_brandeln_ab_to_the_end() -> None:
    # A tiny run with a short move time: the figures are noise, but the deals counted, the
    # interval around the mean and the baseline named are the run's own.
    figures = run_strength_bench(4, seed=3, move_ms=40)
    assert figures["baseline"] == "pure_python"
    assert figures["deals"] == 4  # the SPRT never stopped it early
    low, high = figures["interval95"]
    assert low <= figures["chips_per_deal"] <= high
    assert figures["matches"] >= 2  # A's and B's match of one rotation at least
    line = strength_report(figures)
    assert "against its pure-Python reference" in line
    assert "over 4 duplicate deals, seed 3" in line


def _imported_from(command: tuple[str, ...]) -> str:
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_the_baseline_runs_the_pure_python_engine_or_the_previous_checkout(
    tmp_path: Path,
) -> None:
    show = (
        "-c",
        "from brandeln import sample_bots; import brandeln.engine.playout as p; "
        "print(sample_bots.__file__, p.__file__, sep='|')",
    )
    bot, playout = _imported_from(baseline_command(None, show)).split("|")
    # brandeln/sample_bots is a link to the root's sample_bots/: which of the two names the
    # import reports depends on how the checkout was installed, the file is the same.
    assert Path(bot).resolve() == (ROOT / "sample_bots" / "__init__.py").resolve()
    # The source, not the extension.
    assert Path(playout).resolve() == (ROOT / "engine" / "playout.py").resolve()
    # Another checkout, run from this one's root as the bench does: its packages, not ours
    # (from here `python -m` alone would put this checkout first on the path).
    # (A checkout of the brandeln namespace: its packages in brandeln/, as this one's are.)
    previous = tmp_path / "old checkout"
    for package in ("sample_bots", "engine"):
        (previous / "brandeln" / package).mkdir(parents=True)
        (previous / "brandeln" / package / "__init__.py").write_text("")
    (previous / "brandeln" / "engine" / "playout.py").write_text("")
    bot, playout = _imported_from(baseline_command(previous, show)).split("|")
    assert bot == str(previous / "brandeln" / "sample_bots" / "__init__.py")
    assert playout == str(previous / "brandeln" / "engine" / "playout.py")


def test_a_failing_strength_run_says_why_in_one_line() -> None:
    # `brandeln ab` refuses a run of no deals (exit 2, a usage error on stderr): the bench
    # raises with that error's last line, not a JSON decoding traceback.
    with pytest.raises(RuntimeError, match=r"^brandeln ab failed \(exit \d+\): "):
        run_strength_bench(0, seed=3, move_ms=40)


def test_the_report_shows_the_strength_run_beside_the_playouts() -> None:
    strength = {
        "baseline": "pure_python",
        "deals": 200,
        "matches": 52,
        "seed": 17,
        "move_ms": 200,
        "chips_per_deal": 0.37,
        "interval95": [-1.5, 2.24],
        "seconds": 250.0,
    }
    playouts = {"median": 30000.0, "min": 29000.0, "max": 31000.0, "runs": [30000.0]}
    figures: dict[str, Any] = {
        "machine": bench_report.machine(),
        "montecarlo": {
            "seconds_per_run": 1.0,
            "rounds": 1,
            "playouts_per_second": {"installed": playouts, "pure_python": playouts},
            "ratios": {"installed/pure_python": 1.0},
            "strength": strength,
        },
    }
    figures["targets"] = bench_report.targets(figures)
    markdown = bench_report.render_markdown(figures)
    assert "**+0.37 chips/deal** (95% interval -1.50 .. +2.24) over 200 duplicate deals" in markdown


def test_the_command_line_refuses_a_negative_deal_count(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--strength-deals", "-1"])
    assert "--strength-deals" in capsys.readouterr().err
