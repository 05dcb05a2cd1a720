"""Render a match log as tables: the match at a glance, and one deal trick by trick.

Every view fits 80 columns (see :mod:`brandeln.cli.layout`): ids, contracts and cards are
never cut, and a long bot name folds onto a second line. Each view also exists as plain data
for ``--json`` (:func:`match_overview_json`, :func:`deal_detail_json`, :func:`bot_log_json`).

The log comes read and validated (``brandeln.arena.logreader.read_log``), but its text is the bots'
and the log's: every string from a record reaches the terminal through
``brandeln.cli.terminal_text`` (``plain`` for cells, ``_wrapping`` for lines, ``markup`` inside
titles, which rich parses).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, TypeVar

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from brandeln.arena.latency import log_latency
from brandeln.arena.logreader import LoggedDeal, MatchLog
from brandeln.arena.logrecords import (
    BotLogRecord,
    DecisionRecord,
    FooterRecord,
    HeaderRecord,
    SeatEntry,
)
from brandeln.arena.replay import ReplayReport
from brandeln.cli.layout import compact_table, fixed, folding
from brandeln.cli.terminal_text import markup, plain, safe
from brandeln.engine.cards import format_cards
from brandeln.engine.play_analysis import PlayAnalysis
from brandeln.engine.plurals import plural
from brandeln.protocol.events import (
    BidMadeRecord,
    ContractSetRecord,
    DealEndedRecord,
    EventRecord,
    TrickTakenRecord,
    TrumpNamedRecord,
)

Record = dict[str, Any]
Body = TypeVar("Body")

_SUIT_STYLE = {"C": "green", "S": "blue", "H": "red", "D": "yellow"}
_SUIT_NAME = {"C": "clubs", "S": "spades", "H": "hearts", "D": "diamonds"}
_MADE = {True: "yes", False: "no", None: "-"}


def card_text(cards: str, seats: Sequence[int] | None = None) -> Text:
    """Cards in notation, each coloured by suit; with ``seats``, each as ``seat:card``."""
    text = Text()
    for n, card in enumerate(cards.split()):
        if n:
            text.append(" ")
        if seats is not None:
            text.append(f"{seats[n]}:")
        text.append(safe(card), style=_SUIT_STYLE.get(card[:1], ""))
    return text


def _wrapping(text: str, style: str = "") -> Text:
    """A line of the view that wraps at the width (a console may print with soft wrap);
    never parsed as markup, and bot text in it is made inert."""
    return Text(safe(text), style=style, no_wrap=False, overflow="fold")


def seat_names(header: HeaderRecord) -> list[str]:
    """``seat:registered name`` per seat (raw: escape where printed)."""
    return [f"{s.seat}:{s.bot_name}" for s in header.seats]


def _bot_cell(entry: SeatEntry) -> Text:
    """The registered name, and beside it what the bot's Hello called it, if that differs."""
    cell = plain(entry.bot_name)
    hello = entry.hello_name
    if hello and hello != entry.bot_name:
        cell.append(f" (hello: {safe(hello)})", style="dim")
    return cell


def _trick_seats(leader: int, cards: str, players: int) -> list[int]:
    """The seat that played each card of a trick, in play order from the leader."""
    return [(leader + n) % players for n in range(len(cards.split()))]


def _deal_rows(log: MatchLog) -> list[tuple[LoggedDeal, DealEndedRecord]]:
    """Each deal that ended, with its result."""
    return [
        (logged, event.body)
        for logged in log.deals()
        for event in logged.events
        if isinstance(event.body, DealEndedRecord)
    ]


def _shown_result(log: MatchLog, report: ReplayReport | None) -> FooterRecord | None:
    """The result to show: the replay's figures when there is a replay, the footer's else
    (``None`` for a log without a footer)."""
    footer = log.footer
    if footer is None or report is None:
        return footer
    return dataclasses.replace(
        footer,
        balances=report.replayed_balances,
        ranks=report.replayed_ranks,
        strikes=report.replayed_strikes,
        forfeited=report.replayed_forfeited,
    )


def match_overview(log: MatchLog, report: ReplayReport | None = None) -> RenderableType:
    """The match: seats and result (with each seat's decision time), and one row per deal.

    With ``report`` (the log's replay) the chips, ranks, strikes and forfeits are the replay's.
    """
    header = log.header
    names = seat_names(header)
    footer = _shown_result(log, report)
    latency = log_latency(_decisions(log), len(names))
    result = compact_table(title=f"match {markup(header.match_id)} ({markup(header.ruleset_id)})")
    fixed(result, "seat", right=True)
    folding(result, "bot")
    for column in ("chips", "rank", "strikes", "forfeited"):
        fixed(result, column, right=True)
    # Its own table: beside the result it would leave a long bot name too little room.
    timing = compact_table(title="decision time (ms)")
    for column in ("seat", "decisions", "p50", "p95", "max"):
        fixed(timing, column, right=True)
    for seat, times in enumerate(latency):
        if times.decisions:
            figures = (str(times.p50_ms), str(times.p95_ms), str(times.max_ms))
        else:
            figures = ("-", "-", "-")
        timing.add_row(str(seat), str(times.decisions), *figures)
    for seat, entry in enumerate(header.seats):
        name = _bot_cell(entry)
        if footer is None:
            result.add_row(str(seat), name, "-", "-", "-", "-")
            continue
        ranks = footer.ranks
        result.add_row(
            str(seat),
            name,
            f"{footer.balances[seat]:+d}",
            str(ranks[seat]) if ranks else "-",
            str(footer.strikes[seat]),
            "yes" if seat in footer.forfeited else "",
        )
    status = footer.status.value if footer else "incomplete (no footer)"  # escaped as a Text
    # Eleven columns of short values: one space between them keeps the widest contract
    # ("all-no-trump") and a soloist's name inside 80 columns.
    deals = compact_table(title="deals (tricks and chips by seat)", gap=1)
    for column in ("deal", "dealer"):
        fixed(deals, column, right=True)
    folding(deals, "soloist")
    for column in ("contract", "trump"):
        fixed(deals, column)
    fixed(deals, "tricks")
    fixed(deals, "made")
    for seat in range(len(names)):
        fixed(deals, str(seat), right=True)
    for logged, ended in _deal_rows(log):
        soloist = ended.soloist
        deals.add_row(
            str(logged.number),
            str(logged.record.dealer),
            "-" if soloist is None else plain(names[soloist]),
            plain(ended.contract or ("passed out" if ended.passed_out else "-")),
            plain(ended.trump or "-"),
            " ".join(str(t) for t in ended.tricks_won),
            _MADE[ended.made],
            *(f"{p:+d}" for p in ended.payments),
        )
    return Group(result, _wrapping(f"status: {status}"), timing, deals)


def match_overview_json(log: MatchLog, report: ReplayReport | None = None) -> Record:
    """The overview as data: the seats with their result (the replay's, with ``report``), and
    one entry per deal."""
    header = log.header
    footer = _shown_result(log, report)
    latency = log_latency(_decisions(log), len(header.seats))
    seats = []
    for seat, entry in enumerate(header.seats):
        times = latency[seat]
        row: Record = {
            "seat": seat,
            "bot_id": entry.bot_id,
            "bot_name": entry.bot_name,
            "hello_name": entry.hello_name,
            "latency": {
                "decisions": times.decisions,
                "p50_ms": times.p50_ms,
                "p95_ms": times.p95_ms,
                "max_ms": times.max_ms,
            },
        }
        if footer is not None:
            ranks = footer.ranks
            row |= {
                "chips": footer.balances[seat],
                "rank": ranks[seat] if ranks else None,
                "strikes": footer.strikes[seat],
                "forfeited": seat in footer.forfeited,
            }
        seats.append(row)
    return {
        "match_id": header.match_id,
        "ruleset": header.ruleset_id,
        "status": footer.status.value if footer else "incomplete",
        "seats": seats,
        "deals": [
            {
                "deal": logged.number,
                "dealer": logged.record.dealer,
                "soloist": ended.soloist,
                "contract": ended.contract or None,
                "passed_out": ended.passed_out,
                "trump": ended.trump or None,
                "tricks_won": list(ended.tricks_won),
                "made": ended.made,
                "payments": list(ended.payments),
            }
            for logged, ended in _deal_rows(log)
        ],
    }


def _decisions(log: MatchLog) -> list[DecisionRecord]:
    return [decision for logged in log.deals() for decision in logged.decisions]


def deal_detail(log: MatchLog, deal: int, analysis: PlayAnalysis | None = None) -> RenderableType:
    """One deal: the hands, the auction, trump, every trick as ``seat:card``, settlement; with
    ``analysis`` (``--double-dummy``), each trick's cards that gave their side's goal away."""
    header = log.header
    names = seat_names(header)
    logged = log.deal(deal)
    dealt = logged.record
    events = logged.events
    hands = compact_table(title=f"deal {deal}: hands (dealer {markup(names[dealt.dealer])})")
    folding(hands, "seat")
    fixed(hands, "cards")
    for seat, cards in enumerate(dealt.hands):
        hands.add_row(plain(names[seat]), card_text(cards))
    if dealt.blind:
        hands.add_row("blind", card_text(dealt.blind))
    bids = [f"{names[bid.seat]} {bid.bid}" for bid in _bodies(events, BidMadeRecord)]
    lines: list[RenderableType] = [hands, _wrapping("auction: " + ", ".join(bids))]
    for event in events:
        body = event.body
        if isinstance(body, ContractSetRecord):
            who = "nobody" if body.soloist is None else names[body.soloist]
            note = " (passed out)" if body.passed_out else ""
            lines.append(_wrapping(f"contract: {body.contract or '-'} by {who}{note}"))
        elif isinstance(body, TrumpNamedRecord):
            lines.append(_wrapping(f"trump: {_SUIT_NAME.get(body.suit, body.suit)}"))
    if analysis is not None:
        lines.append(_wrapping(double_dummy_line(analysis)))
    tricks = compact_table(title="tricks (seat:card)")
    fixed(tricks, "#", right=True)
    fixed(tricks, "cards")
    folding(tricks, "winner")
    if analysis is not None:
        folding(tricks, "double dummy")
    for trick in _bodies(events, TrickTakenRecord):
        seats = _trick_seats(trick.leader, trick.cards, len(names))
        row: list[Text | str] = [
            str(trick.trick),
            card_text(trick.cards, seats),
            plain(names[trick.winner]),
        ]
        if analysis is not None:
            row.append(_errors_cell(analysis, trick.trick, names))
        tricks.add_row(*row)
    lines.append(tricks)
    for penalty in logged.penalties:
        lines.append(
            _wrapping(
                f"penalty: {names[penalty.seat]} {penalty.code.value}: {penalty.reason}",
                style="red",
            )
        )
    ended = next(iter(_bodies(events, DealEndedRecord)), None)
    if ended is not None:
        settle = compact_table(title="settlement")
        folding(settle, "seat")
        for column in ("tricks", "chips"):
            fixed(settle, column, right=True)
        for seat, name in enumerate(names):
            settle.add_row(plain(name), str(ended.tricks_won[seat]), f"{ended.payments[seat]:+d}")
        made = {True: "made", False: "failed", None: "no soloist"}[ended.made]
        lines.extend([settle, Text(f"result: {made}")])
    return Panel(Group(*lines), title=f"{markup(header.match_id)} deal {deal}", expand=False)


def _bodies(events: Sequence[EventRecord], kind: type[Body]) -> list[Body]:
    """The events of one kind, in order, as their records."""
    return [event.body for event in events if isinstance(event.body, kind)]


def double_dummy_line(analysis: PlayAnalysis) -> str:
    """What the analysis says of the whole play, in one line."""
    if analysis.makes_at_start is None:
        return "double dummy: no card play to judge (passed out, or no soloist)"
    start = "could be made" if analysis.makes_at_start else "could not be made"
    count = len(analysis.errors)
    errors = (
        "no card gave a side's goal away"
        if not count
        else f"{plural(count, 'card')} gave their side's goal away (marked ?, the cards that would "
        "have kept it in brackets)"
    )
    return (
        f"double dummy (every hand known, best play by all): the contract {start} when the "
        f"play began; {errors}"
    )


def _errors_cell(analysis: PlayAnalysis, trick: int, names: Sequence[str]) -> Text:
    cell = Text()
    for verdict in analysis.errors:
        if verdict.trick != trick:
            continue
        if cell:
            cell.append("; ")
        cell.append(safe(names[verdict.seat]))
        cell.append(f" {verdict.card}?", style=_SUIT_STYLE.get(str(verdict.card)[:1], ""))
        cell.append(f" ({format_cards(verdict.better)})")
    return cell


def double_dummy_json(analysis: PlayAnalysis) -> Record:
    """The analysis as data: the value at the start of the play, then every card judged."""
    return {
        "makes_at_start": analysis.makes_at_start,
        "cards": [
            {
                "trick": verdict.trick,
                "seat": verdict.seat,
                "card": str(verdict.card),
                "for_soloist": verdict.for_soloist,
                "could": verdict.could,
                "kept": verdict.kept,
                "error": verdict.error,
                "better": [str(card) for card in verdict.better],
            }
            for verdict in analysis.verdicts
        ],
    }


def deal_detail_json(log: MatchLog, deal: int) -> Record:
    """One deal as data: hands, every bid, contract, trump, tricks by seat, penalties, result."""
    header = log.header
    players = len(header.seats)
    logged = log.deal(deal)
    dealt = logged.record
    events = logged.events
    contract = next(iter(_bodies(events, ContractSetRecord)), None)
    trump = next((named.suit for named in _bodies(events, TrumpNamedRecord)), None)
    ended = next(iter(_bodies(events, DealEndedRecord)), None)
    tricks = []
    for trick in _bodies(events, TrickTakenRecord):
        seats = _trick_seats(trick.leader, trick.cards, players)
        tricks.append(
            {
                "trick": trick.trick,
                "leader": trick.leader,
                "cards": [
                    {"seat": seat, "card": card}
                    for seat, card in zip(seats, trick.cards.split(), strict=True)
                ],
                "winner": trick.winner,
            }
        )
    return {
        "match_id": header.match_id,
        "deal": deal,
        "dealer": dealt.dealer,
        "hands": [hand.split() for hand in dealt.hands],
        "blind": dealt.blind.split(),
        "auction": [{"seat": bid.seat, "bid": bid.bid} for bid in _bodies(events, BidMadeRecord)],
        "contract": None if contract is None else contract.contract or None,
        "soloist": None if contract is None else contract.soloist,
        "passed_out": None if contract is None else contract.passed_out,
        "trump": trump,
        "tricks": tricks,
        "penalties": [
            {"seat": penalty.seat, "code": penalty.code.value, "reason": penalty.reason}
            for penalty in logged.penalties
        ],
        "result": None
        if ended is None
        else {
            "made": ended.made,
            "tricks_won": list(ended.tricks_won),
            "payments": list(ended.payments),
        },
    }


def seat_of(header: HeaderRecord, who: str) -> int:
    """The seat named by ``who``: its number, or its bot's name or id (KeyError otherwise)."""
    seats = header.seats
    if who.isdigit() and int(who) < len(seats):
        return int(who)
    for entry in seats:
        if who in (entry.bot_name, entry.bot_id):
            return entry.seat
    choices = ", ".join(safe(name) for name in seat_names(header))
    raise KeyError(f"no seat {safe(who)!r} in this match; seats: {choices}")


def _bot_log(log: MatchLog, seat: int, deal: int | None) -> list[BotLogRecord]:
    return [
        record
        for record in log.records
        if isinstance(record, BotLogRecord)
        and record.seat == seat
        and (deal is None or record.deal == deal)
    ]


def bot_log_view(log: MatchLog, seat: int, deal: int | None = None) -> RenderableType:
    """What the bot at ``seat`` logged (all deals, or one), each line made inert."""
    name = seat_names(log.header)[seat]
    where = "" if deal is None else f", deal {deal}"
    entries = _bot_log(log, seat, deal)
    if not entries:
        return _wrapping(f"bot log of seat {name}{where}: nothing logged")
    table = compact_table(title=f"bot log of seat {markup(name)}{where}")
    fixed(table, "deal", right=True)
    folding(table, "text", min_width=20)
    for entry in entries:
        # Line by line: a bot's traceback stays readable, each line escaped on its own.
        text = "\n".join(safe(line) for line in entry.text.splitlines()) or ""
        table.add_row(str(entry.deal), Text(text))
    return table


def bot_log_json(log: MatchLog, seat: int, deal: int | None = None) -> list[Record]:
    """The bot log of ``seat`` as data (the text as the bot sent it; JSON escapes it)."""
    return [{"deal": r.deal, "text": r.text} for r in _bot_log(log, seat, deal)]
