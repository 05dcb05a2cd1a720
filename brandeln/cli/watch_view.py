"""A match as it is played, line by line, for `brandeln watch` and `match run --watch`.

Public information only: every bid, the contract, the trump, each trick as it falls (each
card beside its seat), every penalty, and each deal's settlement. Hands appear only when a
deal has ended, and only if its ``deal_ended`` carries them (the protocol reveals them there).

One renderer for both sources: the lines come from the protocol's records of the public events
(:mod:`brandeln.protocol.events`), as a live stream yields them (``AdminClient.watch_match``) and as
a finished match's log gives them (:func:`logged_events`). Every line fits 80 columns: fixed
fields first, a bot's name (made inert by ``terminal_text``) folding at the width.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Protocol

from rich.console import Console
from rich.text import Text

from brandeln.arena.logreader import MatchLog, decision_event
from brandeln.arena.logrecords import DealRecord, DecisionRecord
from brandeln.cli.match_view import card_text
from brandeln.cli.terminal_text import safe
from brandeln.engine.plurals import plural
from brandeln.protocol.decode import LiveEvent, LivePenalty
from brandeln.protocol.events import (
    BidMadeRecord,
    ContractSetRecord,
    DealEndedRecord,
    EventRecord,
    Penalty,
    TrickTakenRecord,
    TrumpNamedRecord,
)

if TYPE_CHECKING:
    from brandeln.protocol.statuses import MatchStatus

_SUIT_NAME = {"C": "clubs", "S": "spades", "H": "hearts", "D": "diamonds"}


class MatchResult(Protocol):
    """How a match ended, as a referee's summary or the local index tells it."""

    @property
    def match_id(self) -> str: ...
    @property
    def status(self) -> MatchStatus: ...
    @property
    def balances(self) -> tuple[int, ...]: ...
    @property
    def ranks(self) -> tuple[int, ...]: ...
    @property
    def forfeited(self) -> tuple[int, ...]: ...


def logged_events(log: MatchLog) -> Iterator[LiveEvent]:
    """A match log's public events in the order they happened, as a live stream gives them:
    each penalty (without a number: a log does not keep one), and each ``deal_ended`` with the
    balances and the hands (from the deal's record, revealed now that it has ended)."""
    balances = [0] * len(log.header.seats)
    hands: tuple[str, ...] = ()
    deal = 0
    for record in log.records:
        if isinstance(record, DealRecord):
            deal = record.deal_number
            hands = (*record.hands, *((record.blind,) if record.blind else ()))
        elif isinstance(record, DecisionRecord):
            event = decision_event(record, deal)
            if event is not None:
                yield event
        elif isinstance(record, Penalty):
            yield LivePenalty(0, record)
        elif isinstance(record, EventRecord):
            if isinstance(record.body, DealEndedRecord):
                balances = [b + p for b, p in zip(balances, record.body.payments, strict=True)]
                body = dataclasses.replace(record.body, balances=tuple(balances), hands=hands)
                yield dataclasses.replace(record, body=body)
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
        length = f", {plural(deals, 'deal')}" if deals else ""
        self.line(Text(f"match {safe(match_id)} ({safe(ruleset)}{length})", style="bold"))
        for seat in range(len(self.names)):
            self.line(f"  seat {self.who(seat)}")

    def event(self, event: LiveEvent) -> None:
        """One public event, live or from a log (:func:`logged_events`)."""
        deal = event.penalty.deal if isinstance(event, LivePenalty) else event.deal
        if deal and deal != self.deal:
            self.deal = deal
            self.line(Text(f"deal {deal}", style="bold"))
        if isinstance(event, LivePenalty):
            penalty = event.penalty
            self.line(
                f"  penalty  {self.who(penalty.seat)}: {safe(penalty.code.value)} "
                f"(strikes {penalty.strikes}): {safe(penalty.reason)}",
                style="red",
            )
            return
        body = event.body
        if isinstance(body, BidMadeRecord):
            self.line(f"  bid      {self.who(body.seat)}: {safe(body.bid)}")
        elif isinstance(body, ContractSetRecord):
            if body.soloist is None:
                self.line("  contract none: passed out" if body.passed_out else "  no contract")
            else:
                forced = " (passed out: forced)" if body.passed_out else ""
                self.line(
                    f"  contract {safe(body.contract or '-')} by {self.who(body.soloist)}{forced}"
                )
        elif isinstance(body, TrumpNamedRecord):
            self.line(f"  trump    {_SUIT_NAME.get(body.suit, safe(body.suit))}")
        elif isinstance(body, TrickTakenRecord):
            players = len(self.names)
            seats = [(body.leader + n) % players for n in range(len(body.cards.split()))]
            text = Text(f"  trick {body.trick:>2} ")
            text.append_text(card_text(body.cards, seats))
            text.append(f"  won by {self.who(body.winner)}")
            self.line(text)
        elif isinstance(body, DealEndedRecord):
            self._deal_ended(body)

    def _deal_ended(self, ended: DealEndedRecord) -> None:
        if ended.soloist is None:
            result = "no soloist"
        else:
            made = "made" if ended.made else "failed"
            result = f"{safe(ended.contract or '-')} by {self.who(ended.soloist)} {made}"
        self.line(f"  settled  {result}")
        self.line(f"  tricks   {' '.join(str(t) for t in ended.tricks_won)}")
        self.line(f"  chips    {' '.join(f'{p:+d}' for p in ended.payments)}")
        if ended.balances:
            self.line(f"  balances {' '.join(f'{b:+d}' for b in ended.balances)}")
        for seat, cards in enumerate(ended.hands):
            label = f"seat {seat}" if seat < len(self.names) else "blind "
            text = Text(f"  hand {label} ")
            text.append_text(card_text(cards))
            self.line(text)

    def result(self, summary: MatchResult) -> None:
        """The match's end: each seat's balance and rank (its status if it did not finish)."""
        self.line(
            Text(f"match {safe(summary.match_id)} {safe(summary.status.value)}", style="bold")
        )
        ranks = list(summary.ranks)
        for seat, balance in enumerate(summary.balances):
            rank = f"rank {ranks[seat]}" if seat < len(ranks) else ""
            forfeited = " forfeited" if seat in summary.forfeited else ""
            self.line(f"  {balance:+5d}  {rank}{forfeited}  {self.who(seat)}")
