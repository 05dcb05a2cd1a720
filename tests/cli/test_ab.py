"""`brandeln ab` end to end: real bot processes on an embedded referee, the SPRT deciding.

The statistics alone are tests/ladder/test_sprt.py's; here the claim is about the whole:
montecarlo is told from random within a few hundred deals, a bot is not found better than
itself, and seat substitution really replays the same deals (identical deterministic bots
differ by exactly nothing).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def ab(data: Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "brandeln.cli", "ab", "--data", str(data), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env={**os.environ, "GRPC_VERBOSITY": "ERROR", "COLUMNS": "100"},
        check=False,
    )


def result(completed: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert completed.stdout, completed.stderr
    document: dict[str, Any] = json.loads(completed.stdout)
    return document


def test_ab_tells_montecarlo_from_random_within_a_few_hundred_deals(tmp_path: Path) -> None:
    # A short move time keeps the search quick (it thinks half of it); still far stronger.
    completed = ab(
        tmp_path, "--a", "random", "--b", "montecarlo", "--move-ms", "60",
        "--max-deals", "400", "--seed", "11", "--json",
    )  # fmt: skip
    document = result(completed)
    assert document["verdict"] == "H1"
    assert completed.returncode == 0
    assert document["deals"] <= 400
    assert document["interval95"][0] > 0


def test_ab_finds_no_difference_between_a_bot_and_itself(tmp_path: Path) -> None:
    # alpha = 1%: the chance that this test fails by bad luck is below that.
    completed = ab(
        tmp_path, "--a", "random", "--b", "random", "--chips1", "10", "--alpha", "0.01",
        "--max-deals", "1500", "--seed", "12", "--json",
    )  # fmt: skip
    document = result(completed)
    assert document["verdict"] == "H0"
    assert completed.returncode == 1
    low, high = document["interval95"]
    assert low < 10
    assert high > -10


def test_identical_deterministic_bots_on_the_same_deals_differ_by_nothing(tmp_path: Path) -> None:
    """Both versions see the same cards in the same seat against the same opponents: with a
    deterministic bot every deal's result is identical, so any slip in the pairing (another
    seed, permutation or seat) would show as a difference."""
    completed = ab(
        tmp_path, "--a", "heuristic", "--b", "heuristic", "--max-deals", "64", "--seed", "5"
    )  # fmt: skip
    assert completed.returncode == 1, completed.stderr
    out = " ".join(completed.stdout.split())
    assert "B - A: +0.000 chips/deal (95% interval +0.000 .. +0.000)" in out
    assert "H0: B is not better by the threshold" in out
    assert "LLR" in out


def test_a_fixed_length_run_plays_every_deal_it_was_asked_for(tmp_path: Path) -> None:
    """Identical deterministic bots: on these deals the sequential test accepts H0 at the 30th
    (the run above, exit code 1); with --deals 40 all 40 are played, the interval reported with
    no verdict, and the exit code is 0."""
    sequential = result(
        ab(tmp_path, "--a", "heuristic", "--b", "heuristic", "--max-deals", "40", "--seed", "5",
           "--json")
    )  # fmt: skip
    assert sequential["verdict"] == "H0"
    assert sequential["deals"] < 40
    completed = ab(
        tmp_path, "--a", "heuristic", "--b", "heuristic", "--deals", "40", "--seed", "5", "--json"
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    document = result(completed)
    assert document["test"] == "fixed"
    assert document["deals"] == 40
    assert document["verdict"] is None
    assert document["llr"] is None
    assert document["interval95"] == [0.0, 0.0]
    shown = ab(tmp_path, "--a", "heuristic", "--b", "heuristic", "--deals", "8", "--seed", "5")
    assert shown.returncode == 0, shown.stderr
    out = " ".join(shown.stdout.split())
    assert "8 deals, fixed length" in out
    assert "over 8 deals" in out
    assert "fixed length: no difference shown (the interval holds zero)" in out
    assert "LLR" not in out


def test_a_fixed_length_run_takes_none_of_the_tests_options(tmp_path: Path) -> None:
    completed = ab(
        tmp_path, "--a", "random", "--b", "random", "--deals", "8", "--alpha", "0.01",
        "--max-deals", "100",
    )  # fmt: skip
    assert completed.returncode == 2
    assert (
        "--deals plays a fixed number of deals: the sequential test's options (--alpha, "
        "--max-deals) do not apply" in " ".join(completed.stderr.split())
    )


def test_elo_and_chips_bounds_are_not_mixed(tmp_path: Path) -> None:
    completed = ab(tmp_path, "--a", "random", "--b", "random", "--elo0", "0", "--chips1", "2")
    assert completed.returncode == 2
    assert "not both" in completed.stderr


def test_an_unknown_bot_is_a_usage_error(tmp_path: Path) -> None:
    completed = ab(tmp_path, "--a", "random", "--b", "randon")
    assert completed.returncode == 2
    assert "did you mean 'random'" in completed.stderr


def test_one_deal_is_refused_for_it_has_no_interval(tmp_path: Path) -> None:
    # One deal's spread is unknown: the interval would be -inf .. +inf (and the JSON
    # output "Infinity", which is no JSON). Two deals at least, for both kinds of run.
    for option in ("--deals", "--max-deals"):
        completed = ab(tmp_path, "--a", "random", "--b", "random", option, "1")
        assert completed.returncode == 2, completed.stdout
        assert f"Invalid value for '{option}': Input should be greater than or equal to 2" in (
            " ".join(completed.stderr.split())
        )
        assert "inf" not in completed.stdout
