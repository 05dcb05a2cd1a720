"""The replay model against real logs of every ruleset (an embedded referee, sample bots).

Each expectation is read from the log's own records (its deal records, decisions and the
referee's trick and deal-end events), not from the model, so a model that drops, reorders or
misattributes a card, a bid or a payment fails here.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from brandeln.arena.logreader import MatchLog, read_log
from brandeln.arena.replay import logged_deal
from brandeln.engine.play_analysis import SeatPlay, analyse_play
from brandeln.engine.rulesets import RULESET_IDS, find_ruleset
from brandeln.protocol.events import DealEndedRecord, TrickTakenRecord
from brandeln.web.replay_model import match_model
from tests.web.matches import Plan, PlayedMatch, play_matches

DEALS = {"three-player": 3}  # a multiple of the seats; the others 4


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, PlayedMatch]:
    data = tmp_path_factory.mktemp("replay-model") / "data"
    plans = [Plan(ruleset, DEALS.get(ruleset, 4), 5) for ruleset in RULESET_IDS]
    return dict(zip(RULESET_IDS, play_matches(data, plans), strict=True))


def edited(played: PlayedMatch, change: Callable[[list[dict[str, Any]]], None]) -> MatchLog:
    """The played log with its lines edited by ``change`` (as JSON), read back as any log is."""
    lines = [json.loads(line) for line in played.log.read_text().splitlines()]
    change(lines)
    return read_log("".join(json.dumps(line) + "\n" for line in lines), "edited")


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_every_deal_shows_the_logged_hands_auction_cards_winners_and_payments(
    logs: dict[str, PlayedMatch], ruleset: str
) -> None:
    log = logs[ruleset].match_log()
    model = match_model(log)
    json.loads(json.dumps(model))  # JSON-able as it is
    players = find_ruleset(ruleset).players
    footer = log.footer
    assert footer is not None
    assert model["status"] == "finished"
    assert [s["name"] for s in model["seats"]] == [s.bot_name for s in log.header.seats]
    assert len(model["deals"]) == footer.deals_played
    for deal, logged in zip(model["deals"], log.deals(), strict=True):
        record = logged.record
        assert deal["number"] == logged.number
        assert deal["dealer"] == record.dealer
        assert [Counter(h) for h in deal["hands"]] == [Counter(h.split()) for h in record.hands]
        assert Counter(deal["blind"]) == Counter(record.blind.split())
        steps = deal["steps"]
        assert steps[0] == {"kind": "deal"}
        assert steps[-1]["kind"] == "settlement"
        # every decision is one step, in order, by the seat that decided
        acted = [s for s in steps if s["kind"] in ("bid", "trump", "card")]
        assert len(acted) == len(logged.decisions)
        for step, decision in zip(acted, logged.decisions, strict=True):
            if step["kind"] == "bid":
                assert (step["seat"], step["bid"]) == (decision.seat, decision.action)
            elif step["kind"] == "card":
                assert (step["seat"], step["card"]) == (decision.seat, decision.action)
            else:
                assert decision.action == f"trump {step['suit']}"
        # trick winners and running counts as the referee logged them
        taken = [e.body for e in logged.events if isinstance(e.body, TrickTakenRecord)]
        won = [s for s in steps if s["kind"] == "trick"]
        assert [(s["number"], s["winner"]) for s in won] == [(e.trick, e.winner) for e in taken]
        counts = [0] * players
        for step, trick_taken in zip(won, taken, strict=True):
            counts[trick_taken.winner] += 1
            assert step["tricks_won"] == counts
        assert [" ".join(c["card"] for c in t["cards"]) for t in deal["tricks"]] == [
            e.cards for e in taken
        ]
        for trick in deal["tricks"]:  # each card beside the seat that played it
            assert [c["seat"] for c in trick["cards"]] == [
                (trick["leader"] + n) % players for n in range(len(trick["cards"]))
            ]
        ended = next(e.body for e in logged.events if isinstance(e.body, DealEndedRecord))
        settlement = deal["settlement"]
        assert settlement["payments"] == list(ended.payments)
        assert settlement["tricks_won"] == list(ended.tricks_won)
        assert (deal["contract"], deal["soloist"]) == (ended.contract, ended.soloist)
        assert deal["trump"] == ended.trump
        assert steps[-1]["payments"] == list(ended.payments)
    last = model["deals"][-1]["settlement"]
    pool_share = last["pool"] // players  # a Haferl pool left at the end is shared out
    assert [b + pool_share for b in last["balances"]] == list(footer.balances)


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_each_finished_deal_carries_its_double_dummy_verdicts(
    logs: dict[str, PlayedMatch], ruleset: str
) -> None:
    log = logs[ruleset].match_log()
    model = match_model(log)
    for deal in model["deals"]:
        analysis = analyse_play(*logged_deal(log, deal["number"]))
        assert deal["double_dummy"] == analysis.makes_at_start
        marked = [
            (step["seat"], step["card"], step["dd"]["better"], step["dd"]["for_soloist"])
            for step in deal["steps"]
            if step["kind"] == "card" and "dd" in step
        ]
        assert marked == [
            (v.seat, str(v.card), [str(c) for c in v.better], v.for_soloist)
            for v in analysis.errors
        ]


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_each_seats_card_play_is_its_verdicts_tallied_and_the_match_sums_them(
    logs: dict[str, PlayedMatch], ruleset: str
) -> None:
    log = logs[ruleset].match_log()
    model = match_model(log)
    players = model["players"]
    totals = [SeatPlay() for _ in range(players)]
    for deal in model["deals"]:
        analysis = analyse_play(*logged_deal(log, deal["number"]))
        if not analysis.verdicts:
            assert deal["card_play"] is None
            continue
        tallies = [SeatPlay() for _ in range(players)]
        for verdict in analysis.verdicts:
            tallies[verdict.seat].add(verdict)
            totals[verdict.seat].add(verdict)
        assert deal["card_play"] == [_fields(t) for t in tallies]
    judged = any(deal["card_play"] for deal in model["deals"])
    assert model["card_play"] == ([_fields(t) for t in totals] if judged else None)


def _fields(tally: SeatPlay) -> dict[str, int]:
    return {
        "soloist_mattered": tally.soloist_mattered,
        "soloist_errors": tally.soloist_errors,
        "defender_mattered": tally.defender_mattered,
        "defender_errors": tally.defender_errors,
    }


def test_the_three_player_blind_is_in_the_model(logs: dict[str, PlayedMatch]) -> None:
    model = match_model(logs["three-player"].match_log())
    assert model["blind"] is True
    assert model["players"] == 3
    for deal in model["deals"]:
        assert len(deal["hands"]) == 3
        assert len(deal["blind"]) == 7


def test_a_damaged_log_replays_up_to_the_first_action_the_engine_refuses(
    logs: dict[str, PlayedMatch], tmp_path: Path
) -> None:
    played = logs["standard"]

    def first_card_played(action: Callable[[list[dict[str, Any]], int], str]) -> MatchLog:
        def change(records: list[dict[str, Any]]) -> None:
            first = next(r for r in records if r["type"] == "decision" and len(r["action"]) == 2)
            first["action"] = action(records, first["seat"])

        return edited(played, change)

    model = match_model(first_card_played(lambda _records, _seat: "XX"))  # not a card
    assert len(model["deals"]) == 1
    deal = model["deals"][0]
    assert deal["complete"] is False
    assert deal["settlement"] is None
    assert all(s["kind"] != "card" for s in deal["steps"])
    # a card the seat does not hold (its neighbour's): the engine refuses it, so does the model
    model = match_model(
        first_card_played(lambda records, seat: records[1]["hands"][(seat + 1) % 4].split()[0])
    )
    assert model["deals"][0]["complete"] is False
    assert all(s["kind"] != "card" for s in model["deals"][0]["steps"])


def test_the_model_reads_the_log_as_written(logs: dict[str, PlayedMatch]) -> None:
    played = logs["haferl"]
    text = played.log.read_text()
    assert match_model(read_log(text)) == match_model(played.match_log())


def test_a_match_cut_short_mid_deal_shows_that_deal_up_to_its_last_decision(
    logs: dict[str, PlayedMatch],
) -> None:
    def cut_short(records: list[dict[str, Any]]) -> None:
        last_deal = max(n for n, r in enumerate(records) if r["type"] == "deal")
        decisions = [n for n, r in enumerate(records) if r["type"] == "decision" and n > last_deal]
        records[:] = [*records[: decisions[9] + 1], {**records[-1], "status": "aborted"}]

    model = match_model(edited(logs["standard"], cut_short))
    assert model["status"] == "aborted"
    deal = model["deals"][-1]
    assert deal["complete"] is False
    assert deal["settlement"] is None
    acted = [s for s in deal["steps"] if s["kind"] in ("bid", "trump", "card")]
    assert len(acted) == 10
    assert all(d["complete"] for d in model["deals"][:-1])
