"""A match as it is played, line by line, for `brandeln watch` and `match run --watch`.

Public information only: every bid, the contract, the trump, each trick as it falls (each
card beside its seat), every penalty, and each deal's settlement. Hands appear only when a
deal has ended, and only if its ``DealEnded`` carries them (the protocol reveals them there).

The lines come from one form of public event, the match log's (``arena.matchlog``: a dict with
``kind``): a live ``GameEvent`` is put in that form by :func:`event_record_of`, and a finished
match's log gives it as it is (:func:`logged_events`). Every line fits 80 columns: fixed fields
first, a bot's name (made inert by ``terminal_text``) folding at the width.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from brandeln_cli.match_view import card_text
from brandeln_cli.terminal_text import safe

if TYPE_CHECKING:
    from brandeln.v1 import admin_pb2, cards_pb2

Record = dict[str, Any]

_SUIT_NAME = {"C": "clubs", "S": "spades", "H": "hearts", "D": "diamonds"}


def event_record_of(event: cards_pb2.GameEvent) -> Record | None:
    """A live public event in the log's form (None for a kind this view does not show).

    ``deal_ended`` also carries the match ``balances`` and the revealed ``hands`` (by seat, the
    blind last, as the event gives them); a penalty is a ``seat_penalized`` record.
    """
    from arena.codec import card_from_pb, suit_from_pb  # noqa: PLC0415 - grpc loads slowly

    def cards(values: Sequence[cards_pb2.Card]) -> str:
        return " ".join(str(card_from_pb(card)) for card in values)

    record: Record = {"seq": event.seq, "deal": event.deal_number}
    kind = event.WhichOneof("kind")
    if kind == "bid_made":
        record.update(kind=kind, seat=event.bid_made.seat, bid=event.bid_made.bid.contract)
    elif kind == "contract_set":
        contract = event.contract_set
        soloist = contract.soloist if contract.HasField("soloist") else None
        record.update(
            kind=kind, soloist=soloist, contract=contract.contract, passed_out=contract.passed_out
        )
    elif kind == "trump_named":
        record.update(kind=kind, suit=suit_from_pb(event.trump_named.suit).letter)
    elif kind == "card_played":
        played = event.card_played
        record.update(kind=kind, seat=played.seat, card=str(card_from_pb(played.card)))
    elif kind == "trick_taken":
        trick = event.trick_taken
        record.update(
            kind=kind,
            trick=trick.trick_number,
            leader=trick.leader,
            cards=cards(trick.cards),
            winner=trick.winner,
        )
    elif kind == "deal_ended":
        ended = event.deal_ended
        soloist = ended.soloist if ended.HasField("soloist") else None
        record.update(
            kind=kind,
            deal=ended.deal_number or event.deal_number,
            soloist=soloist,
            contract=ended.contract,
            trump=suit_from_pb(ended.trump).letter if ended.trump else None,
            tricks_won=list(ended.tricks_won),
            made=ended.made if soloist is not None else None,
            payments=list(ended.payments),
            balances=list(ended.balances),
            hands=[cards(hand.cards) for hand in ended.hands],
        )
    elif kind == "seat_penalized":
        penalty = event.seat_penalized
        record.update(
            kind=kind,
            seat=penalty.seat,
            code=penalty.code,
            reason=penalty.reason,
            strikes=penalty.strikes,
        )
    else:
        return None
    return record


def logged_events(records: Sequence[Record]) -> Iterator[Record]:
    """A match log's public events in the order they happened, in the live form: penalties
    as ``seat_penalized``, and each ``deal_ended`` with the balances and the hands (from the
    deal's record, revealed now that it has ended)."""
    from arena.matchlog import action_event  # noqa: PLC0415

    players = len(records[0]["seats"]) if records else 0
    balances = [0] * players
    hands: list[str] = []
    deal = 0
    for record in records:
        kind = record["type"]
        if kind == "deal":
            deal = int(record["deal_number"])
            hands = [*record["hands"], *([record["blind"]] if record.get("blind") else [])]
        elif kind == "decision" and "seq" in record:
            yield action_event(record, deal)
        elif kind == "penalty":
            yield {"kind": "seat_penalized", "deal": record["deal"]} | {
                key: record[key] for key in ("seat", "code", "reason", "strikes")
            }
        elif kind == "event":
            if record["kind"] == "deal_ended":
                balances = [b + p for b, p in zip(balances, record["payments"], strict=True)]
                yield record | {"balances": list(balances), "hands": hands}
            else:
                yield record


class WatchPrinter:
    """Prints each public event of one match as it comes (see the module docstring)."""

    def __init__(self, console: Console, names: Sequence[str]) -> None:
        self.console = console
        self.names = list(names)
        self.deal = 0

    def who(self, seat: int) -> str:
        """``seat name``, the name made inert (``?`` for a seat the header did not name)."""
        name = self.names[seat] if 0 <= seat < len(self.names) else "?"
        return f"{seat} {safe(name)}"

    def line(self, text: Text | str, *, style: str = "") -> None:
        line = text if isinstance(text, Text) else Text(text, style=style)
        line.overflow = "fold"
        self.console.print(line, highlight=False, soft_wrap=False)

    def header(self, match_id: str, ruleset: str, deals: int | None = None) -> None:
        length = f", {deals} deals" if deals else ""
        self.line(Text(f"match {safe(match_id)} ({safe(ruleset)}{length})", style="bold"))
        for seat in range(len(self.names)):
            self.line(f"  seat {self.who(seat)}")

    def event(self, record: Record) -> None:
        """One public event (the log's form: :func:`event_record_of`, :func:`logged_events`)."""
        deal = int(record.get("deal") or 0)
        if deal and deal != self.deal:
            self.deal = deal
            self.line(Text(f"deal {deal}", style="bold"))
        kind = record.get("kind")
        if kind == "bid_made":
            self.line(f"  bid      {self.who(record['seat'])}: {safe(record['bid'])}")
        elif kind == "contract_set":
            soloist = record["soloist"]
            if soloist is None:
                self.line(
                    "  contract none: passed out" if record["passed_out"] else "  no contract"
                )
            else:
                forced = " (passed out: forced)" if record["passed_out"] else ""
                self.line(
                    f"  contract {safe(record['contract'] or '-')} by {self.who(soloist)}{forced}"
                )
        elif kind == "trump_named":
            self.line(f"  trump    {_SUIT_NAME.get(record['suit'], safe(record['suit']))}")
        elif kind == "trick_taken":
            players = len(self.names)
            seats = [(record["leader"] + n) % players for n in range(len(record["cards"].split()))]
            text = Text(f"  trick {record['trick']:>2} ")
            text.append_text(card_text(record["cards"], seats))
            text.append(f"  won by {self.who(record['winner'])}")
            self.line(text)
        elif kind == "seat_penalized":
            self.line(
                f"  penalty  {self.who(record['seat'])}: {safe(record['code'])} "
                f"(strikes {record['strikes']}): {safe(record['reason'])}",
                style="red",
            )
        elif kind == "deal_ended":
            self._deal_ended(record)

    def _deal_ended(self, record: Record) -> None:
        soloist = record["soloist"]
        if soloist is None:
            result = "no soloist"
        else:
            made = "made" if record["made"] else "failed"
            result = f"{safe(record['contract'] or '-')} by {self.who(soloist)} {made}"
        self.line(f"  settled  {result}")
        self.line(f"  tricks   {' '.join(str(t) for t in record['tricks_won'])}")
        self.line(f"  chips    {' '.join(f'{p:+d}' for p in record['payments'])}")
        if record.get("balances"):
            self.line(f"  balances {' '.join(f'{b:+d}' for b in record['balances'])}")
        for seat, cards in enumerate(record.get("hands") or []):
            label = f"seat {seat}" if seat < len(self.names) else "blind "
            text = Text(f"  hand {label} ")
            text.append_text(card_text(cards))
            self.line(text)

    def result(self, summary: admin_pb2.MatchSummary) -> None:
        """The match's end: each seat's balance and rank (its status if it did not finish)."""
        self.line(Text(f"match {safe(summary.match_id)} {safe(summary.status)}", style="bold"))
        ranks = list(summary.ranks)
        for seat, balance in enumerate(summary.balances):
            rank = f"rank {ranks[seat]}" if seat < len(ranks) else ""
            forfeited = " forfeited" if seat in summary.forfeited else ""
            self.line(f"  {balance:+5d}  {rank}{forfeited}  {self.who(seat)}")
