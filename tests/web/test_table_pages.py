"""The tables over HTTP, against a real `brandeln web` app (uvicorn on a free loopback port)
and real sample bots: a person plays a whole match with posts a script makes by hand, and
every decision is checked against the engine's replay of the match's log; moves made by hand
outside the rules are refused with one line and cost nothing; a spectator, and the live
table's event stream, never see a hidden card; the people token and hostile names.
"""

from __future__ import annotations

import html
import random
import re
from pathlib import Path

import httpx2 as httpx

from brandeln.arena.replay import replay
from tests.web.hostile import HOSTILE_TEXTS, assert_inert, assert_inert_text
from tests.web.table_play import (
    THREE_BOTS,
    Asked,
    dealt_cards,
    expected_decisions,
    legal,
    match_log,
    open_request,
    open_table,
    person_client,
    served_tables,
    shown,
    snapshots,
    table_form,
)
from tests.web.test_running_match_secrecy import CARD, cards_outside_ended_deals, read_until_quiet

TABLE_ERROR = re.compile(r'<p class="error" id="table-error">(.*?)</p>', re.S)


def one_line(reply: httpx.Response) -> str:
    """The refusal's one line: a page's error line, or a plain-text answer."""
    assert 400 <= reply.status_code < 500, (reply.status_code, reply.text[:300])
    if reply.headers["content-type"].startswith("text/html"):
        found = TABLE_ERROR.search(reply.text)
        assert found is not None, reply.text[:500]
        line = html.unescape(found.group(1))
    else:
        assert_inert_text(reply.text)
        line = reply.text.removesuffix("\n")
    assert line.strip()
    assert "\n" not in line
    return line


def test_a_person_plays_a_whole_match_by_hand_against_three_sample_bots(tmp_path: Path) -> None:
    data = tmp_path / "data"
    choose = random.Random(41)
    asked: list[Asked] = []
    held: tuple[int, list[str]] | None = None  # the deal a spectator looked at, its cards down
    spectated: dict[str, str] = {}
    live_messages: list[tuple[str, object]] = []
    with served_tables(data) as base, person_client(base) as person:
        path = open_table(person, table_form(("person", *THREE_BOTS), deals=3))
        refused_by_hand = False
        final = None
        while final is None:  # a dropped stream is read again, as a browser would
            for snapshot in snapshots(person, path):
                if snapshot["final"]:
                    final = snapshot
                    break
                request = open_request(snapshot)
                if request is None:
                    continue
                asked.append(shown(snapshot))
                # At the first decision that has an illegal choice to send by hand: the first
                # decision may have none (a forehand's first bid, as the bots' draws fall).
                if not refused_by_hand and any(not c["legal"] for c in request["choices"]):
                    refused_by_hand = True
                    check_refusals(base, person, path, request)
                deal = snapshot["deal"]
                first_trick = not any(deal["tricks_won"]) and deal["trick"]["winner"] is None
                if held is None and request["phase"] == "play" and first_trick:
                    # The match waits for this person: what spectators see now is all they get.
                    down = [card["card"] for card in deal["trick"]["cards"]]
                    held = (deal["number"], down)
                    spectated, live_messages = spectate(base, path, deal["number"], len(down))
                choices = legal(request)
                bids = [action for action in choices if action != "pass"]
                # In the auction the lowest open contract: every deal then has a card play
                # (a passed-out deal has none), whatever the bots draw.
                action = (
                    bids[0] if request["phase"] == "auction" and bids else choose.choice(choices)
                )
                reply = person.post(
                    f"{path}/act", data={"request": str(request["id"]), "action": action}
                )
                assert reply.status_code == 202, reply.text
        # Three deals without one decision where a rule bars a choice: not in a lifetime.
        assert refused_by_hand, "no decision of the match had an illegal choice"
        result = final["result"]
        assert final["table"]["status"] == "finished", final
        assert result is not None, final
        assert result["status"] == "finished", final
        match_id = result["match_id"]
        index = person.get("/")
        assert match_id in index.text  # the match list shows it, as any other match
        assert person.get(f"/matches/{match_id}").status_code == 200
        assert match_id in person.get("/tables").text

    log = match_log(data, match_id)
    assert replay(log).reproduced
    assert log.penalties() == []  # the moves refused by hand never reached the referee
    assert asked == expected_decisions(log, 0)
    assert held is not None, "no deal was played out: the spectator saw no play"
    deal, down = held
    hidden = dealt_cards(log, deal) - set(down)
    assert len(hidden) >= 20
    for name, page in spectated.items():
        assert cards_outside_ended_deals(page, deal - 1) & hidden == set(), name
    seen_in_play: set[str] = set()
    for event, message in live_messages:
        assert isinstance(message, dict)
        number = message["number"] if event == "deal" else message["deal"]
        assert number <= deal, message
        if event == "deal" and message["hands"] is not None:
            assert number < deal, message  # hands shown only once their deal ended
        elif number == deal:
            seen_in_play |= set(CARD.findall(str(message)))
    assert seen_in_play == set(down)


def check_refusals(base: str, person: httpx.Client, path: str, request: dict[str, object]) -> None:
    """Moves made by hand that the page never offers: each refused with one line, the
    decision still open."""
    choices = request["choices"]
    assert isinstance(choices, list)
    illegal = [choice for choice in choices if not choice["legal"]]
    reply = person.post(
        f"{path}/act", data={"request": str(request["id"]), "action": illegal[-1]["action"]}
    )
    assert reply.status_code == 422
    assert one_line(reply).endswith(illegal[-1]["reason"])
    wrong = person.post(f"{path}/act", data={"request": "999999", "action": "pass"})
    assert wrong.status_code == 409
    assert "is not open" in one_line(wrong)
    garbled = person.post(f"{path}/act", data={"request": str(request["id"]), "action": "<b>"})
    assert garbled.status_code == 400
    one_line(garbled)
    with httpx.Client(base_url=base, headers={"origin": "http://elsewhere.example"}) as other:
        other.cookies = person.cookies
        forged = other.post(f"{path}/act", data={"request": str(request["id"]), "action": "pass"})
        assert forged.status_code == 403
        one_line(forged)
    with person_client(base) as stranger:
        nobody = stranger.post(
            f"{path}/act", data={"request": str(request["id"]), "action": "pass"}
        )
        assert nobody.status_code == 403
        assert stranger.get(f"{path}/events").status_code == 403


def spectate(
    base: str, path: str, deal: int, down: int
) -> tuple[dict[str, str], list[tuple[str, object]]]:
    """What a spectator reads while the match waits: the table's page, the live table's page
    and its event stream (up to the ``down`` cards of ``deal`` on the table)."""
    with httpx.Client(base_url=base, timeout=180) as spectator:
        page = spectator.get(path)
        assert page.status_code == 200
        found = re.search(r'"events": "([^"]*/live/(m_[0-9a-f]+)/events)"', page.text)
        assert found is not None, "the table's page shows its live table"
        live = spectator.get(f"/live/{found.group(2)}")
        assert live.status_code == 200
    messages = read_until_quiet(base + found.group(1), deal, down)
    return {"table page": page.text, "live page": live.text}, messages


def test_a_shared_server_asks_for_the_people_token_and_names_are_text(tmp_path: Path) -> None:
    hostile = HOSTILE_TEXTS[0]
    seats = ("person", "person", "heuristic", "heuristic")  # the bots start once both sit
    with served_tables(tmp_path / "data", people_token="let-me-in") as base:
        with person_client(base) as first:
            form = first.get("/tables")
            assert 'id="token-how"' in form.text
            assert "--people-token" in form.text
            refused = first.post("/tables", data=table_form(seats, deals=1))
            assert refused.status_code == 403
            assert "ask its operator" in one_line(refused)
            fields = {**table_form(seats, deals=1, name=hostile), "token": "let-me-in"}
            with httpx.Client(base_url=base, headers={"origin": "http://evil.example"}) as other:
                assert other.post("/tables", data=fields).status_code == 403
            path = open_table(first, fields)
            mine = first.get(path)
            assert 'id="person-table"' in mine.text
            assert_inert(mine.text, shown=(hostile,), where="the person's page")
        with person_client(base) as second:
            watching = second.get(path)
            assert 'id="seat-form"' in watching.text
            assert 'id="token-how"' in watching.text
            assert_inert(watching.text, shown=(hostile,), where="a watcher's page")
            assert_inert(second.get("/tables").text, shown=(hostile,), where="the tables")
            no_token = second.post(f"{path}/seats", data={"name": "bo"})
            assert no_token.status_code == 403
            one_line(no_token)
            sat = second.post(
                f"{path}/seats", data={"name": "bo", "token": "let-me-in"}, follow_redirects=False
            )
            assert sat.status_code == 303
            first_snapshot = next(snapshots(second, path))
            assert first_snapshot["seat"] == 1
            assert [seat["name"] for seat in first_snapshot["table"]["seats"][:2]] == [
                hostile,
                "bo",
            ]
