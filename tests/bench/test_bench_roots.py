"""The benchmarks that start processes run them from the checkout's root (their cwd and
PYTHONPATH): brandeln/bench/ sits two folders below it since the namespace move."""

from __future__ import annotations

from brandeln.bench import cluster, montecarlo
from brandeln.bench.referee import referee_bench
from tests.conftest import ROOT


def test_the_benchmarks_run_their_processes_from_the_checkouts_root() -> None:
    assert montecarlo.ROOT == ROOT
    assert cluster.ROOT == ROOT
    assert referee_bench._ROOT == ROOT
