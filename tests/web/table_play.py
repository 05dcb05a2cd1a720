"""Helpers for the tables' tests: an app with tables served by a real uvicorn, a person's seat
driven over HTTP (its event stream read, its moves posted), and what each of the person's
decisions must show, computed from the match's log through the engine (never from the page).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import httpx2 as httpx

from brandeln.arena.logreader import MatchLog, read_log
from brandeln.engine.actions import parse_action
from brandeln.engine.match import MatchState
from brandeln.services import data_folder
from brandeln.web.app import StorageLocation, create_app
from brandeln.web.seat_view import PHASE_NAMES
from tests.web.browser import serve_asgi

Json = dict[str, Any]
WAIT_S: Final = 180.0  # for any one answer or event: generous, the machine is loaded
THREE_BOTS: Final = ("heuristic", "random", "heuristic")


@contextmanager
def served_tables(data: Path, people_token: str | None = None) -> Iterator[str]:
    """``brandeln web``'s app over the data folder ``data``, served on a free loopback port;
    its lifespan ends every table (their bots stopped) as the server stops. Its streams send
    a keep-alive after a second of silence, not fifteen: a spectator's reader takes one as
    the sign that all the held match had to send has come."""
    app = create_app(StorageLocation(data=data), people_token=people_token, keepalive_s=1.0)
    with serve_asgi(app) as base:
        yield base


def person_client(base: str) -> httpx.Client:
    """A person's browser, as far as the server can tell: its cookies, its pages' Origin."""
    return httpx.Client(base_url=base, headers={"origin": base}, timeout=WAIT_S)


def table_form(
    seats: tuple[str, ...], *, deals: int, name: str = "ann", ruleset: str = "standard"
) -> dict[str, str]:
    fields = {"ruleset": ruleset, "deals": str(deals), "name": name}
    fields.update({f"seat{n}": seat for n, seat in enumerate(seats)})
    return fields


def open_table(client: httpx.Client, fields: Mapping[str, str]) -> str:
    """Post the new-table form; the table's path (the person now holds its first seat)."""
    reply = client.post("/tables", data=dict(fields), follow_redirects=False)
    assert reply.status_code == 303, (reply.status_code, reply.text[:500])
    location: str = reply.headers["location"]
    return location


def snapshots(client: httpx.Client, path: str) -> Iterator[Json]:
    """The seat's snapshots as its event stream sends them, to the final one."""
    fields: dict[str, str] = {}
    with client.stream("GET", f"{path}/events") as response:
        assert response.status_code == 200, response.status_code
        for line in response.iter_lines():
            if line.startswith(":"):
                continue
            if line:
                name, _, value = line.partition(": ")
                fields[name] = value
                continue
            if fields.get("event") == "seat":
                snapshot: Json = json.loads(fields["data"])
                yield snapshot
                if snapshot["final"]:
                    return
            fields = {}


def open_request(snapshot: Json) -> Json | None:
    """The decision the seat must answer now (None: none, or its answer is on its way)."""
    request: Json | None = snapshot["request"]
    return request if request is not None and not request["sent"] else None


def legal(request: Json) -> list[str]:
    return [choice["action"] for choice in request["choices"] if choice["legal"]]


def act(client: httpx.Client, path: str, request: int | str, action: str) -> httpx.Response:
    return client.post(f"{path}/act", data={"request": str(request), "action": action})


@dataclass(frozen=True)
class Asked:
    """One of the person's decisions as the page must show it: the deal, the phase, the
    person's hand, the legal choices in the referee's order, the auction, the trick."""

    deal: int
    phase: str
    hand: list[str]
    legal: list[str]
    auction: list[tuple[int, str]]
    trick: list[tuple[int, str]]


def shown(snapshot: Json) -> Asked:
    """What a snapshot of an open decision shows, as :class:`Asked`."""
    deal, request = snapshot["deal"], snapshot["request"]
    return Asked(
        deal=deal["number"],
        phase=request["phase"],
        hand=sorted(deal["hand"]),
        legal=legal(request),
        auction=[(bid["seat"], bid["bid"]) for bid in deal["auction"]],
        trick=[] if deal["trick"]["winner"] is not None else _trick(deal["trick"]["cards"]),
    )


def _trick(cards: list[Json]) -> list[tuple[int, str]]:
    return [(card["seat"], card["card"]) for card in cards]


def expected_decisions(log: MatchLog, seat: int) -> list[Asked]:
    """Every decision of ``seat`` the log records, as the engine replays it: what that seat
    was shown when asked."""
    ruleset = log.ruleset()
    match = MatchState.new(ruleset, log.header.deals, log.header.first_dealer)
    found: list[Asked] = []
    for logged in log.deals():
        state = match.start_deal(logged.record.deal(ruleset))
        for decision in logged.decisions:
            if decision.seat == seat:
                view = state.view(seat)
                leader = view.current_trick_leader
                trick = [
                    ((leader or 0) + n) % ruleset.players for n in range(len(view.current_trick))
                ]
                found.append(
                    Asked(
                        deal=logged.number,
                        phase=PHASE_NAMES[state.phase],
                        hand=sorted(str(card) for card in view.hand),
                        legal=[str(action) for action in state.legal_actions()],
                        auction=[(made.seat, made.bid.contract) for made in view.auction],
                        trick=list(zip(trick, (str(c) for c in view.current_trick), strict=True)),
                    )
                )
            state, _ = state.step(parse_action(decision.action))
        outcome = state.outcome()
        assert outcome is not None
        match = match.record(outcome)
    return found


def match_log(data: Path, match_id: str) -> MatchLog:
    """A table's match's log, in the data folder's embedded store, as every reader takes it."""
    path = data_folder.embedded_dir(data) / data_folder.LOGS_DIR / f"{match_id}.jsonl"
    return read_log(path.read_text(), str(path))


def dealt_cards(log: MatchLog, deal: int) -> set[str]:
    """Every card of the hands of deal ``deal``."""
    return {card for hand in log.deal(deal).record.hands for card in hand.split()}
