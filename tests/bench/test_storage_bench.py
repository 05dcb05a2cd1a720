"""`brandeln bench storage` at a tiny size: figures for both backends (not their speed)."""

from __future__ import annotations

from brandeln.bench import report as bench_report
from brandeln.bench.storage import StorageBenchSettings, run_storage_bench
from tests.pg_server import PostgresServer


def test_the_storage_benchmark_measures_both_backends_at_each_size(
    postgres: PostgresServer,
) -> None:
    db = f"postgresql://{postgres.user}@127.0.0.1:{postgres.port}/postgres"
    settings = StorageBenchSettings(sizes=(40, 80), record=3, reads=2, db=db)
    figures = run_storage_bench(settings, lambda _: None)
    assert [(row["backend"], row["matches"]) for row in figures["rows"]] == [
        ("sqlite", 40),
        ("sqlite", 80),
        ("postgresql", 40),
        ("postgresql", 80),
    ]
    assert all(row["blocks_per_s"] > 0 and row["ratings_ms_median"] > 0 for row in figures["rows"])
    assert set(figures["slowdown"]) == {"sqlite", "postgresql"}
    markdown = bench_report.render_markdown(
        {"machine": bench_report.machine(), "storage": figures, "targets": []}
    )
    assert "## Ladder storage" in markdown
