"""The stdio bridge against the fake referee: the sample child, garbage, crashes, JSON format."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

from brandeln.sdk import SessionOptions, choice_text, parse_card, play
from brandeln.sdk.bridge.bot import BridgeBot
from brandeln.sdk.bridge.format import event_json, request_json
from brandeln.v1 import bot_pb2, cards_pb2
from tests.bots.botkit_fakes import (
    FakeReferee,
    FakeSeat,
    FakeServer,
    deal_started,
    match_ended,
    match_started,
    scripted_requests,
)

ROOT = Path(__file__).resolve().parents[2]
SIMPLE_BOT = ROOT / "sample_bots" / "bridge_examples" / "simple_bot.py"

# A child that answers the first legal choice of every request, reading the JSON it is sent.
FIRST_LEGAL = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "request":
        print(json.dumps({"request_id": message["request_id"], "choice": message["legal"][0]}),
              flush=True)
"""


def child(tmp_path: Path, name: str, body: str) -> list[str]:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return [sys.executable, str(path)]


def options(address: str, max_matches: int = 1) -> SessionOptions:
    return SessionOptions(server=address, token="good-token", max_matches=max_matches)


async def one_match(seat: FakeSeat) -> None:
    await seat.send(match_started=match_started())
    await seat.send(deal_started=deal_started())
    for request in scripted_requests():
        await seat.ask(request)
    await seat.send(match_ended=match_ended())
    await seat.until_closed()


async def test_the_sample_bridge_bot_plays_through_the_bridge() -> None:
    referee = FakeReferee(one_match)
    async with FakeServer(referee) as address:
        [stats] = await play(
            lambda: BridgeBot([sys.executable, str(SIMPLE_BOT)], name="simple"), options(address)
        )
    assert referee.errors == []
    assert referee.hellos[0].bot_name == "simple"
    assert referee.hellos[0].snapshot_only is False  # the bridge forwards events by default
    seat = referee.seats[0]
    # pass (no four-card suit with J or 7... CA C9 SK HJ H7 HA D9 has three hearts), then the
    # longest suit, then the last legal card when leading, the first when following.
    assert [choice_text(a.choice) for a in seat.actions] == ["pass", "H", "D9", "C9"]
    assert "simple_bot: seat 1" in seat.logs
    assert stats.fallbacks == 0


async def test_garbage_on_stdout_is_logged_and_ignored_and_stderr_reaches_the_log(
    tmp_path: Path,
) -> None:
    noisy = child(
        tmp_path,
        "noisy.py",
        """
        import json, sys
        for line in sys.stdin:
            message = json.loads(line)
            if message["type"] != "request":
                continue
            print("hello, I am not JSON", flush=True)
            print("[1, 2, 3]", flush=True)
            print(json.dumps({"request_id": message["request_id"]}), flush=True)  # no choice
            print(json.dumps({"request_id": 999999, "choice_index": 0}), flush=True)  # stale
            print("thinking about", message["request_id"], file=sys.stderr, flush=True)
            print(json.dumps({"request_id": message["request_id"],
                              "choice_index": len(message["legal"]) - 1}), flush=True)
        """,
    )
    referee = FakeReferee(one_match)
    async with FakeServer(referee) as address:
        [stats] = await play(lambda: BridgeBot(noisy), options(address))
    assert referee.errors == []
    seat = referee.seats[0]
    requests = scripted_requests()
    assert [choice_text(a.choice) for a in seat.actions] == [
        choice_text(r.legal[-1]) for r in requests
    ]
    assert stats.fallbacks == 0
    garbage = [t for t in seat.logs if "ignored a line from the child" in t]
    assert any("hello, I am not JSON" in t for t in garbage)
    assert any("[1, 2, 3]" in t for t in garbage)
    assert any('{"request_id": 1' in t for t in garbage)
    assert "[stderr] thinking about 11" in seat.logs


async def test_an_illegal_answer_from_the_child_becomes_the_fallback(tmp_path: Path) -> None:
    illegal = child(
        tmp_path,
        "illegal.py",
        """
        import json, sys
        for line in sys.stdin:
            message = json.loads(line)
            if message["type"] == "request":
                print(json.dumps({"request_id": message["request_id"], "choice": "SA"}), flush=True)
        """,
    )
    referee = FakeReferee(one_match)
    async with FakeServer(referee) as address:
        [stats] = await play(lambda: BridgeBot(illegal), options(address))
    seat = referee.seats[0]
    assert [choice_text(a.choice) for a in seat.actions] == ["pass", "C", "CA", "C9"]
    assert stats.fallbacks == 4
    assert any("returned SA, which is not legal here" in t for t in seat.logs)


async def test_a_child_that_crashes_is_restarted_with_the_match_context(tmp_path: Path) -> None:
    marker = tmp_path / "crashed-once"
    crashy = child(
        tmp_path,
        "crashy.py",
        f"""
        import json, os, sys
        seen = []
        for line in sys.stdin:
            message = json.loads(line)
            seen.append(message["type"])
            if message["type"] != "request":
                continue
            if message["phase"] == "trump" and not os.path.exists({str(marker)!r}):
                open({str(marker)!r}, "w").close()
                sys.exit(3)
            print("saw " + " ".join(seen), file=sys.stderr, flush=True)
            print(json.dumps({{"choice": message["legal"][0]}}), flush=True)
        """,
    )
    bots: list[BridgeBot] = []

    def factory() -> BridgeBot:
        bots.append(BridgeBot(crashy))
        return bots[-1]

    referee = FakeReferee(one_match)
    async with FakeServer(referee) as address:
        await play(factory, options(address))
    assert referee.errors == []
    seat = referee.seats[0]
    assert [a.request_id for a in seat.actions] == [11, 12, 13, 14]
    assert [choice_text(a.choice) for a in seat.actions] == ["pass", "C", "CA", "C9"]
    assert bots[0].children_started == 2
    assert "bridge: the child exited with code 3" in seat.logs
    assert any(t.startswith("bridge: restarting the child (1/3)") for t in seat.logs)
    # The new child was told the welcome, the match and the deal before the open request.
    assert "[stderr] saw welcome match_started deal_started request" in seat.logs


async def test_a_child_that_keeps_crashing_leaves_the_seat_to_the_referees_clock(
    tmp_path: Path,
) -> None:
    dying = child(
        tmp_path,
        "dying.py",
        """
        import json, sys
        for line in sys.stdin:
            if json.loads(line)["type"] == "request":
                sys.exit(1)
        """,
    )
    unanswered: list[int] = []

    async def referee_with_a_clock(seat: FakeSeat) -> None:
        for match_id in ("m1", "m2"):
            await seat.send(match_started=match_started(match_id))
            await seat.send(deal_started=deal_started())
            for request in scripted_requests()[:2]:
                if await seat.ask_or_time_out(request, 1.5) is None:
                    unanswered.append(request.request_id)  # the referee plays the fallback
            await seat.send(match_ended=match_ended(match_id))
        await seat.until_closed()

    bots: list[BridgeBot] = []

    def factory() -> BridgeBot:
        bots.append(BridgeBot(dying, max_restarts=1))
        return bots[-1]

    referee = FakeReferee(referee_with_a_clock)
    async with FakeServer(referee) as address:
        [stats] = await play(factory, options(address, max_matches=2))
    assert referee.errors == []
    assert unanswered == [11, 12, 11, 12]
    assert stats.matches == 2  # the session carried on through both matches
    # Per match: the first child, one restart; the second match starts afresh.
    assert bots[0].children_started == 4
    assert referee.seats[0].actions == []


def test_requests_and_events_are_plain_json_in_card_notation() -> None:
    request = scripted_requests()[3]
    encoded = request_json(request)
    assert json.loads(json.dumps(encoded)) == encoded
    assert encoded["type"] == "request"
    assert encoded["phase"] == "card"
    assert encoded["legal"] == ["C9", "CA"]
    assert encoded["view"]["hand"] == ["CA", "C9", "SK", "H7", "HA", "D9"]
    assert encoded["view"]["trump"] == "H"
    assert encoded["view"]["soloist"] == 1
    assert encoded["view"]["current_trick"] == ["CT"]
    event = cards_pb2.GameEvent(
        seq=5, card_played=cards_pb2.CardPlayed(seat=2, card=parse_card("HJ"))
    )
    assert event_json(event) == {
        "type": "event",
        "kind": "card_played",
        "seq": 5,
        "seat": 2,
        "card": "HJ",
    }
    no_soloist = cards_pb2.GameEvent(seq=6, contract_set=cards_pb2.ContractSet(passed_out=True))
    assert event_json(no_soloist)["soloist"] is None
    assert request_json(bot_pb2.DecisionRequest())["view"]["trump"] is None


def test_a_request_carries_each_cards_strength_in_this_deal() -> None:
    request = scripted_requests()[3]  # hearts are trump
    standard = request_json(request, cards_pb2.Ruleset(id="standard"))["strength"]
    assert len(standard) == 28
    assert (standard["HJ"], standard["H7"], standard["HA"], standard["H9"]) == (7, 6, 5, 1)
    assert (standard["CA"], standard["CJ"], standard["C7"]) == (7, 4, 1)
    russian = cards_pb2.Ruleset(id="russian-32", options={"trump_order": "natural", "deck": "32"})
    natural = request_json(request, russian)["strength"]
    assert len(natural) == 32
    assert (natural["HA"], natural["HJ"], natural["H8"], natural["H7"]) == (8, 5, 2, 1)
    bidding = request_json(scripted_requests()[0], cards_pb2.Ruleset(id="standard"))["strength"]
    assert bidding["HJ"] == 4  # no trump named yet: the plain order


async def test_the_bridge_tells_the_child_the_strengths_of_the_matchs_ruleset(
    tmp_path: Path,
) -> None:
    echo = child(
        tmp_path,
        "echo.py",
        """
        import json, sys
        for line in sys.stdin:
            message = json.loads(line)
            if message["type"] == "request":
                strength = message["strength"]
                text = f"HJ={strength['HJ']} H7={strength['H7']} trump={message['view']['trump']}"
                print(json.dumps({"type": "log", "text": text}), flush=True)
                print(json.dumps({"request_id": message["request_id"], "choice_index": 0}),
                      flush=True)
        """,
    )
    referee = FakeReferee(one_match)
    async with FakeServer(referee) as address:
        await play(lambda: BridgeBot(echo), options(address))
    logs = referee.seats[0].logs
    assert "HJ=4 H7=1 trump=None" in logs  # the bid: plain order
    assert "HJ=7 H7=6 trump=H" in logs  # the play: hearts trump, J and 7 on top
