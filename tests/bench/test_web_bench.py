"""`brandeln bench web` at a tiny size: a real season's pages timed at two store sizes, the
stores filled up with synthetic matches (figures, not speed)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from brandeln.cli.main import app

runner = CliRunner()


def test_bench_web_times_every_page_at_each_size(tmp_path: Path) -> None:
    out = tmp_path / "web.json"
    result = runner.invoke(
        app, ["bench", "web", "--sizes", "20,400", "--requests", "2", "--json", str(out)]
    )
    assert result.exit_code == 0, result.output
    figures = json.loads(out.read_text())
    assert [size["matches"] for size in figures["sizes"]] == [20, 400]
    # The real season (4 blocks of 4 matches) plus the synthetic rows make each size.
    assert [size["synthetic"] for size in figures["sizes"]] == [4, 384]
    for size in figures["sizes"]:
        assert set(size["pages"]) == {"leaderboard", "match", "ratings", "index", "bot"}
        assert all(page["median"] > 0 for page in size["pages"].values())
    assert set(figures["ratios"]) == set(figures["sizes"][0]["pages"])
    assert figures["target"]["pages"] == ["leaderboard", "match"]
    assert "leaderboard (target)" in result.output
