"""OpenSpiel's ISMCTS and MCTS seated at a real referee by `brandeln bot run openspiel:...`."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspiel", reason="install the research extra: pip install -e '.[research]'")

from brandeln.openspiel.search_bot import (
    PROBE_SIMULATIONS,
    TIME_SHARE,
    Algorithm,
    SearchBot,
    parse_search_spec,
)
from brandeln.v1 import admin_pb2, bot_pb2, cards_pb2
from tests.conftest import AdminClient, BotProcesses

TIME_CONTROL = cards_pb2.TimeControl(move_ms=2000, bank_ms=10000, max_strikes=3)


@pytest.mark.parametrize(
    ("spec", "ruleset_id"),
    [
        ("openspiel:ismcts:simulations=10,seed=1", "standard"),
        ("openspiel:ismcts:simulations=10,seed=2", "three-player"),
        ("openspiel:mcts:simulations=10,seed=3", "russian"),
    ],
)
async def test_a_search_plays_a_whole_match_with_no_strike_or_fallback(
    spec: str,
    ruleset_id: str,
    admin: AdminClient,
    bot_processes: BotProcesses,
    referee: object,
) -> None:
    address = referee.address  # type: ignore[attr-defined]
    ids = []
    names = [spec, "heuristic", "random", "heuristic"][: 3 if ruleset_id == "three-player" else 4]
    for seat, name in enumerate(names):
        reply = await admin.register(f"bot{seat}")
        env = {"BRANDELN_SERVER": address, "BRANDELN_TOKEN": reply.token}
        bot_processes.start(["-m", "brandeln.cli", "bot", "run", name], f"bot{seat}", env)
        ids.append(reply.bot_id)
    await admin.wait_for_sessions(ids, timeout=120)
    _, result = await admin.run_match(
        admin_pb2.RunMatchRequest(
            bot_ids=ids, ruleset=ruleset_id, deals=len(ids), seed=4, time_control=TIME_CONTROL
        )
    )
    log = (
        await admin.stub.GetMatch(
            admin_pb2.GetMatchRequest(match_id=result.match_id), metadata=admin.metadata
        )
    ).log_jsonl
    assert result.status == "finished"
    assert list(result.strikes) == [0] * len(ids)
    assert "decide() failed" not in log  # every answer was the search's, none a fallback
    assert " simulations in " in log  # the search's own line in the match log


def test_the_options_are_read_and_a_wrong_one_is_named() -> None:
    spec = parse_search_spec("openspiel:mcts:simulations=5,rollouts=2,seed=9")
    assert (spec.algorithm, spec.simulations, spec.rollouts, spec.seed) == (
        Algorithm.MCTS,
        5,
        2,
        9,
    )
    with pytest.raises(ValueError, match="known: openspiel:ismcts, openspiel:mcts"):
        parse_search_spec("openspiel:alphazero")
    with pytest.raises(ValueError, match="unknown option 'sims'"):
        parse_search_spec("openspiel:ismcts:sims=5")
    with pytest.raises(ValueError, match="at least 1"):
        parse_search_spec("openspiel:ismcts:simulations=0")


def test_a_short_move_time_sizes_the_search_down() -> None:
    bot = SearchBot(parse_search_spec("openspiel:ismcts:simulations=1000"))
    request = bot_pb2.DecisionRequest(move_ms=500)
    assert bot.simulations_for(request) == PROBE_SIMULATIONS  # the pace is not known yet
    bot.seconds_per_simulation = 0.01
    assert bot.simulations_for(request) == int(0.5 * TIME_SHARE / 0.01)
    assert bot.simulations_for(bot_pb2.DecisionRequest(move_ms=100_000)) == 1000
    bot.seconds_per_simulation = 10.0
    assert bot.simulations_for(request) == 1  # never none: one rollout is quick
