"""`season run --rerun-top` end to end: the real embedded referee, sample-bot processes, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from brandeln.cli.main import app
from brandeln.ladder.store.database import LadderStore
from tests.ladder.test_season_e2e import random_bots_season

RANDOM_BOTS = {"random-1", "random-2", "random-3", "random-4"}


def test_a_short_season_with_a_final_rerun_through_the_cli(tmp_path: Path) -> None:
    data = tmp_path / "data"
    file = tmp_path / "season.toml"
    file.write_text(random_bots_season("rerun-e2e", blocks=2, deals=4))
    command = ["season", "run", str(file), "--data", str(data), "--json"]

    result = CliRunner().invoke(app, [*command, "--rerun-top", "4", "--rerun-max-blocks", "1"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    rerun = document["run"]["rerun"]
    assert set(rerun["top"]) == RANDOM_BOTS
    assert rerun["after"] == 2
    assert rerun["cap"] == 1
    assert rerun["stopped"] in {"separated", "cap"}
    assert rerun["blocks_played"] == rerun["blocks_done"] <= 1
    assert [interval["bot"] for interval in rerun["intervals"]] == [
        interval["bot"]
        for interval in sorted(rerun["intervals"], key=lambda i: (-i["strength"], i["bot"]))
    ]
    assert rerun["message"] in result.stderr  # why it stopped, beside the JSON
    played = rerun["blocks_done"]
    if rerun["stopped"] == "cap":
        assert played == 1
        assert rerun["overlapping"]
    else:
        assert rerun["overlapping"] == []
    assert document["blocks_finished"] == 2 + played
    with LadderStore.open(data / "ladder.db", create=False) as store:
        assert store.blocks.finished_blocks("rerun-e2e") == set(range(2 + played))
        assert {bot for m in store.reads.matches("rerun-e2e") for bot in m.bots} == RANDOM_BOTS
        assert sum(row.blocks for row in store.reads.ratings("rerun-e2e")) == 4 * (2 + played)

    # Again: the rerun has stopped, nothing is played.
    again = CliRunner().invoke(app, [*command, "--rerun-top", "4", "--rerun-max-blocks", "1"])
    assert again.exit_code == 0, again.output
    rerun_again = json.loads(again.stdout)["run"]["rerun"]
    assert (rerun_again["blocks_played"], rerun_again["blocks_done"]) == (0, played)
    assert json.loads(again.stdout)["run"]["referee_contacted"] is False
