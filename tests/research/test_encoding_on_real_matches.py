"""The SDK's encoding of a ``DecisionRequest`` equals the environments' encoding of the engine's
state, at every decision of real matches: a real referee, real bot processes, one seat a
recording bot that writes the tensors and the mask it built; the match log replayed through
the engine gives the environments' side, position by position."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from brandeln.arena.logreader import read_log
from brandeln.engine.rulesets import RULESET_IDS, find_ruleset
from brandeln.engine.state import DealState
from brandeln.engine_encoding import observation_of_state
from brandeln.sdk.encoding import (
    action_index,
    information_state_tensor,
    legal_mask,
    observation_tensor,
)
from brandeln.v1 import admin_pb2, cards_pb2
from tests.conftest import ROOT, AdminClient, BotProcesses

RECORDING_BOT = ROOT / "tests" / "research" / "recording_bot.py"
RECORDER_SEAT = 1
OPPONENTS = ("heuristic", "random", "heuristic")
DEALS = 4  # a deal per seat as dealer: the recorder meets every position
TIME_CONTROL = cards_pb2.TimeControl(move_ms=5000, bank_ms=20000, max_strikes=3)


def environment_side(log_jsonl: str, seat: int) -> list[dict[str, Any]]:
    """What the environments build at each of ``seat``'s decisions, replaying the log's deals
    through the engine."""
    log = read_log(log_jsonl)
    ruleset = log.ruleset()
    positions = []
    for logged in log.deals():
        deal, actions = logged.engine(ruleset)
        state = DealState.new(ruleset, deal)  # the pool moves chips only, not the encoding
        for action in actions:
            if state.to_act == seat:
                facts = observation_of_state(state, seat)
                positions.append(
                    {
                        "deal": logged.number,
                        "observation": observation_tensor(facts),
                        "information_state": information_state_tensor(facts),
                        "mask": legal_mask(action_index(str(a)) for a in state.legal_actions()),
                    }
                )
            state = state.apply(action)
    return positions


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
async def test_every_decisions_tensors_and_mask_match_the_environments(
    ruleset_id: str,
    admin: AdminClient,
    bot_processes: BotProcesses,
    referee: object,
    tmp_path: Path,
) -> None:
    address = referee.address  # type: ignore[attr-defined]
    players = find_ruleset(ruleset_id).players
    recorded = tmp_path / "recorded.jsonl"
    ids = []
    for seat, name in enumerate(["heuristic", "recorder", *OPPONENTS[1:]][:players]):
        reply = await admin.register(f"{name}{seat}")
        env = {"BRANDELN_SERVER": address, "BRANDELN_TOKEN": reply.token}
        if seat == RECORDER_SEAT:
            bot_processes.start([str(RECORDING_BOT), str(recorded)], name, env)
        else:
            args = ["-m", "brandeln.sample_bots", name, "--seed", str(seat)]
            bot_processes.start(args, name, env)
        ids.append(reply.bot_id)
    await admin.wait_for_sessions(ids, timeout=120)
    _, result = await admin.run_match(
        admin_pb2.RunMatchRequest(
            bot_ids=ids, ruleset=ruleset_id, deals=DEALS, seed=11, time_control=TIME_CONTROL
        )
    )
    assert result.status == "finished"
    assert list(result.strikes) == [0] * players
    log = await admin.stub.GetMatch(
        admin_pb2.GetMatchRequest(match_id=result.match_id), metadata=admin.metadata
    )

    expected = environment_side(log.log_jsonl, RECORDER_SEAT)
    lines = [json.loads(line) for line in recorded.read_text().splitlines()]
    assert {line["seat"] for line in lines} == {RECORDER_SEAT}
    assert len(lines) == len(expected) > DEALS
    for number, (sdk, environment) in enumerate(zip(lines, expected, strict=True)):
        where = f"decision {number} (deal {environment['deal']})"
        assert sdk["deal"] == environment["deal"], where
        for key in ("observation", "information_state", "mask"):
            assert sdk[key] == environment[key], f"{key} differs at {where}"
