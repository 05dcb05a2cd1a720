"""`brandeln match run`: one match of real bot processes on an embedded referee over gRPC."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from brandeln.cli.main import app
from tests.conftest import MINIMAL_BOT

WIDTH = 80
runner = CliRunner(env={"COLUMNS": str(WIDTH)})


def match_run(data: Path, *args: str) -> Result:
    return runner.invoke(app, ["match", "run", *args, "--data", str(data)])


def played_id(output: str) -> str:
    found = re.search(r"matches show (m_[0-9a-f]+) --deal 1", output)
    assert found, output
    return found.group(1)


def test_four_sample_bots_play_one_match_with_result_deals_latency_and_replay_hint(
    tmp_path: Path,
) -> None:
    result = match_run(
        tmp_path, "random", "heuristic", "montecarlo", "random",
        "--deals", "4", "--seed", "11", "--move-ms", "100",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = result.output
    assert "seed 11" in out
    for name in ("random@match", "heuristic@match", "montecarlo@match", "random-2@match"):
        assert name in out
    assert "status: finished" in out
    assert "deals (tricks and chips by seat)" in out
    assert "decision time (ms)" in out
    assert all(len(line) <= WIDTH for line in out.splitlines() if "brandeln" not in line)
    match_id = played_id(out)
    assert f"watch {match_id}" in out
    # The replay the hint names opens from the same data folder.
    shown = runner.invoke(
        app, ["matches", "show", match_id, "--deal", "1", "--data", str(tmp_path)]
    )
    assert shown.exit_code == 0, shown.output
    assert "tricks (seat:card)" in shown.output
    # Each bot's output went to its own log.
    assert (tmp_path / "match" / "bots" / "montecarlo.log").is_file()


def test_a_three_player_match_seats_three_and_json_has_each_seats_latency(tmp_path: Path) -> None:
    result = match_run(
        tmp_path, "random", "heuristic", "random",
        "--ruleset", "three-player", "--deals", "3", "--seed", "4", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["ruleset"] == "three-player"
    assert document["status"] == "finished"
    assert document["seed"] == 4
    assert len(document["seats"]) == 3
    assert len(document["deals"]) == 3
    for seat in document["seats"]:
        assert seat["latency"]["decisions"] > 0
        assert seat["latency"]["p50_ms"] <= seat["latency"]["p95_ms"] <= seat["latency"]["max_ms"]


def test_a_cmd_bot_a_command_after_dashes_and_the_bridge_sample_play_one_match(
    tmp_path: Path,
) -> None:
    # minimal_bot.py takes the address and token as arguments: the placeholders a season
    # file's command may use are filled in the same way.
    result = match_run(
        tmp_path,
        "bridge",
        "heuristic",
        f"cmd:python {MINIMAL_BOT} {{server}} {{token}} first",
        "--deals", "4", "--seed", "2",
        "--", "python", MINIMAL_BOT, "{server}", "{token}", "last",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "minimal_bot@match" in result.output
    assert "bridge@match" in result.output
    assert "minimal_bot-2@match" in result.output
    assert "status: finished" in result.output


def test_running_again_reuses_the_embedded_referees_identities(tmp_path: Path) -> None:
    for seed in ("1", "2"):
        result = match_run(
            tmp_path, "random", "random", "random", "random", "--deals", "1", "--seed", seed
        )
        assert result.exit_code == 0, result.output
    listed = runner.invoke(app, ["bots", "list", "--data", str(tmp_path), "--json"])
    assert listed.exit_code == 0, listed.output
    names = sorted(bot["name"] for bot in json.loads(listed.stdout))
    assert names == ["random-2@match", "random-3@match", "random-4@match", "random@match"]


@pytest.mark.parametrize(
    ("bots", "message"),
    [
        (["random", "rando", "heuristic", "random"], "unknown bot 'rando': did you mean 'random'?"),
        (["random", "random"], "ruleset 'standard' seats 4 bots; 2 given"),
        (["random", "random", "random", "cmd:"], "write the command after `cmd:`"),
        (
            ["random", "random", "random", "bot_0123456789ab"],
            "bot_0123456789ab: a registered bot connects by itself",
        ),
    ],
)
def test_a_bad_bot_argument_is_a_one_line_error_before_anything_starts(
    tmp_path: Path, bots: list[str], message: str
) -> None:
    result = match_run(tmp_path, *bots)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "embedded").exists()  # no referee was started


def test_on_a_running_referee_a_registered_bot_plays_beside_command_bots(tmp_path: Path) -> None:
    from tests.conftest import BotProcesses  # noqa: PLC0415
    from tests.faults.referee_process import ADMIN_TOKEN, RefereeUnderTest  # noqa: PLC0415

    served = RefereeUnderTest.serve(tmp_path / "served")
    bots = BotProcesses(tmp_path)
    try:
        where = ["--referee", served.address, "--admin-token", ADMIN_TOKEN]
        added = runner.invoke(app, ["bots", "add", "mine", "--json", *where[:2]],
                              env={"BRANDELN_ADMIN_TOKEN": ADMIN_TOKEN})  # fmt: skip
        assert added.exit_code == 0, added.output
        mine = json.loads(added.stdout)
        bots.start([MINIMAL_BOT, served.address, mine["token"], "first"], name="mine")
        # Without --referee the error says where the data folder's referee listens.
        seats = ["random", mine["bot_id"], "heuristic", "random"]
        hinted = match_run(tmp_path / "served", *seats)
        assert hinted.exit_code == 2
        assert f"add --referee {served.address}" in hinted.stderr
        result = match_run(
            tmp_path, "random", mine["bot_id"], "heuristic", "random",
            "--deals", "4", "--seed", "3", *where,
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        assert "mine" in result.output
        assert "status: finished" in result.output
        match_id = played_id(result.output)
        assert f"--referee {served.address}" in result.output  # the hints name the referee
        # Identities of their own on a shared referee: no other run's token is rotated away.
        listed = runner.invoke(app, ["bots", "list", "--json", *where[:2]],
                               env={"BRANDELN_ADMIN_TOKEN": ADMIN_TOKEN})  # fmt: skip
        names = [bot["name"] for bot in json.loads(listed.stdout)]
        assert any(re.fullmatch(r"random@match-[0-9a-f]{6}", name) for name in names), names
        replay = runner.invoke(app, ["watch", match_id[:8], *where])  # a prefix will do
        assert replay.exit_code == 0, replay.output
        assert f"match {match_id} finished" in replay.output
    finally:
        bots.stop()
        served.terminate()
