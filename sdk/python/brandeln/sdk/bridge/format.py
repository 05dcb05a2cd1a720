"""The JSON Lines format of the stdio bridge (see README.md): messages to JSON.

Every referee message becomes one JSON object with a ``"type"``; cards are written in notation
(``"HJ"``), suits as letters, phases as ``"bid"``/``"trump"``/``"card"``, absent optional seats
as ``null``.

>>> from brandeln.sdk.notation import parse_card
>>> request_json(bot_pb2.DecisionRequest(request_id=7, phase=cards_pb2.PHASE_CARD,
...     legal=[cards_pb2.Choice(card=parse_card("HJ"))]))["legal"]
['HJ']
"""

from __future__ import annotations

from typing import Any

from brandeln.sdk.notation import cards_text, choice_text, suit_letter
from brandeln.sdk.situation import deck
from brandeln.sdk.trick import TrickRules
from brandeln.v1 import bot_pb2, cards_pb2

JsonObject = dict[str, Any]

PHASES = {
    cards_pb2.PHASE_BID: "bid",
    cards_pb2.PHASE_TRUMP: "trump",
    cards_pb2.PHASE_CARD: "card",
}
REJECT_CODES = {
    bot_pb2.REJECT_CODE_ILLEGAL: "illegal",
    bot_pb2.REJECT_CODE_STALE_REQUEST: "stale_request",
    bot_pb2.REJECT_CODE_WRONG_PHASE: "wrong_phase",
    bot_pb2.REJECT_CODE_MALFORMED: "malformed",
}


def _suit_or_null(suit: cards_pb2.Suit.ValueType) -> str | None:
    return suit_letter(suit) if suit != cards_pb2.SUIT_UNSPECIFIED else None


def _trick(trick: cards_pb2.TrickTaken) -> JsonObject:
    return {
        "trick_number": trick.trick_number,
        "leader": trick.leader,
        "cards": cards_text(trick.cards),
        "winner": trick.winner,
    }


def view_json(view: cards_pb2.PlayerView) -> JsonObject:
    """A ``PlayerView`` as JSON."""
    return {
        "seat": view.seat,
        "dealer": view.dealer,
        "forehand": view.forehand,
        "hand": cards_text(view.hand),
        "auction": [{"seat": b.seat, "bid": b.bid.contract} for b in view.auction],
        "soloist": view.soloist if view.HasField("soloist") else None,
        "contract": view.contract,
        "trump": _suit_or_null(view.trump),
        "tricks": [_trick(t) for t in view.tricks],
        "current_trick_leader": view.current_trick_leader,
        "current_trick": cards_text(view.current_trick),
        "tricks_won": list(view.tricks_won),
        "deal_payments": list(view.deal_payments),
        "match_balances": list(view.match_balances),
        "deal_number": view.deal_number,
    }


def request_json(
    request: bot_pb2.DecisionRequest, ruleset: cards_pb2.Ruleset | None = None
) -> JsonObject:
    """A ``DecisionRequest`` as JSON: ``legal`` in notation, in canonical order, and
    ``strength``: every card of the deal's pack (of ``ruleset``; None: the standard's) numbered
    by its place in its suit in this deal, 1 the lowest (the trump order once trump is named).
    """
    rules = TrickRules.for_deal(ruleset, request.view.trump)
    return {
        "type": "request",
        "request_id": request.request_id,
        "phase": PHASES.get(request.phase, "unspecified"),
        "legal": [choice_text(c) for c in request.legal],
        "view": view_json(request.view),
        "move_ms": request.move_ms,
        "bank_ms": request.bank_ms,
        "strikes": request.strikes,
        "last_rtt_ms": request.last_rtt_ms,
        "strength": rules.strength_table(deck(ruleset)),
    }


def welcome_json(welcome: bot_pb2.Welcome) -> JsonObject:
    return {
        "type": "welcome",
        "session_id": welcome.session_id,
        "bot_id": welcome.bot_id,
        "protocol_version": welcome.protocol_version,
        "server_version": welcome.server_version,
    }


def match_started_json(match: bot_pb2.MatchStarted) -> JsonObject:
    ruleset = match.ruleset
    control = match.time_control
    return {
        "type": "match_started",
        "match_id": match.match_id,
        "seat": match.seat,
        "players": [{"seat": p.seat, "bot_name": p.bot_name} for p in match.players],
        "ruleset": {
            "id": ruleset.id,
            "players": ruleset.players,
            "tricks": ruleset.tricks,
            "contracts": [
                {"id": c.id, "goal": c.goal, "tricks": c.tricks, "trump": c.trump, "value": c.value}
                for c in ruleset.contracts
            ],
            "options": dict(ruleset.options),
        },
        "deals": match.deals,
        "time_control": {
            "move_ms": control.move_ms,
            "bank_ms": control.bank_ms,
            "max_strikes": control.max_strikes,
            "reconnect_ms": control.reconnect_ms,
        },
    }


def deal_started_json(deal: bot_pb2.DealStarted) -> JsonObject:
    return {
        "type": "deal_started",
        "deal_number": deal.deal_number,
        "dealer": deal.dealer,
        "forehand": deal.forehand,
        "hand": cards_text(deal.hand),
    }


def event_json(event: cards_pb2.GameEvent) -> JsonObject:
    """A ``GameEvent`` as ``{"type": "event", "kind": ..., "seq": ..., ...fields}``."""
    kind = event.WhichOneof("kind") or "unspecified"
    out: JsonObject = {"type": "event", "kind": kind, "seq": event.seq}
    if event.deal_number:
        out["deal_number"] = event.deal_number
    if kind == "bid_made":
        out |= {"seat": event.bid_made.seat, "bid": event.bid_made.bid.contract}
    elif kind == "contract_set":
        cs = event.contract_set
        out |= {
            "soloist": cs.soloist if cs.HasField("soloist") else None,
            "contract": cs.contract,
            "passed_out": cs.passed_out,
        }
    elif kind == "trump_named":
        out["suit"] = _suit_or_null(event.trump_named.suit)
    elif kind == "card_played":
        out |= {
            "seat": event.card_played.seat,
            "card": cards_text([event.card_played.card])[0],
        }
    elif kind == "trick_taken":
        out |= _trick(event.trick_taken)
    elif kind == "deal_ended":
        de = event.deal_ended
        out |= {
            "deal_number": de.deal_number,
            "soloist": de.soloist if de.HasField("soloist") else None,
            "contract": de.contract,
            "trump": _suit_or_null(de.trump),
            "tricks_won": list(de.tricks_won),
            "made": de.made,
            "payments": list(de.payments),
            "balances": list(de.balances),
            "hands": [{"seat": h.seat, "cards": cards_text(h.cards)} for h in de.hands],
            "pool": de.pool,
        }
    elif kind == "seat_penalized":
        sp = event.seat_penalized
        out |= {"seat": sp.seat, "reason": sp.reason, "code": sp.code, "strikes": sp.strikes}
    return out


def rejected_json(rejected: bot_pb2.ActionRejected) -> JsonObject:
    return {
        "type": "rejected",
        "request_id": rejected.request_id,
        "code": REJECT_CODES.get(rejected.code, "unspecified"),
        "reason": rejected.reason,
    }


def match_ended_json(ended: bot_pb2.MatchEnded) -> JsonObject:
    return {
        "type": "match_ended",
        "match_id": ended.match_id,
        "balances": list(ended.balances),
        "ranks": list(ended.ranks),
        "forfeited": list(ended.forfeited),
        "status": ended.status,
    }
