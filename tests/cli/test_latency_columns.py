"""Decision latency and strikes per bot in `ratings` (and `season run`), end to end."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from brandeln.cli.main import app
from tests.conftest import MINIMAL_BOT

WIDTH = 80
runner = CliRunner(env={"COLUMNS": str(WIDTH)})

SEASON = f"""
name = "timed"
seed = 5
blocks = 1
deals_per_match = 4
concurrency = 1  # one session per bot: minimal_bot.py opens one

[time_control]
max_strikes = 9

[[bots]]
name = "first"
command = ["python", "{MINIMAL_BOT}", "{{server}}", "{{token}}", "first"]
[[bots]]
name = "last"
command = ["python", "{MINIMAL_BOT}", "{{server}}", "{{token}}", "last"]
[[bots]]
name = "illegal"
command = ["python", "{MINIMAL_BOT}", "{{server}}", "{{token}}", "illegal"]
[[bots]]
name = "random"
command = ["python", "-m", "brandeln.cli", "bot", "run", "random", "--seed", "1"]
"""


def test_a_season_records_each_bots_latency_and_ratings_shows_it_with_strikes(
    tmp_path: Path,
) -> None:
    season = tmp_path / "timed.toml"
    season.write_text(SEASON)
    played = runner.invoke(app, ["season", "run", str(season), "--data", str(tmp_path)])
    assert played.exit_code == 0, played.output
    assert "decisions (ms)" in played.output

    shown = runner.invoke(app, ["ratings", "--data", str(tmp_path)])
    assert shown.exit_code == 0, shown.output
    table = shown.output.split("decisions (ms)", 1)[1]
    assert all(len(line) <= WIDTH for line in shown.output.splitlines())
    rows = {line.split()[1]: line.split()[2:] for line in table.splitlines()[2:6]}
    assert set(rows) == {"first", "last", "illegal", "random"}
    for figures in rows.values():
        decisions, p50, p95, slowest, _ = (int(figure) for figure in figures)
        assert decisions > 0
        assert p50 <= p95 <= slowest
    # The illegal bot strikes once per match: four matches in the block.
    assert rows["illegal"][4] == "4"
    assert rows["first"][4] == "0"

    document = json.loads(runner.invoke(app, ["ratings", "--json", "--data", str(tmp_path)]).stdout)
    by_bot = {row["bot"]: row for row in document["leaderboard"]}
    assert by_bot["illegal"]["strikes"] == 4
    assert by_bot["random"]["latency"]["decisions"] == int(rows["random"][0])
