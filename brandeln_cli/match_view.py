"""Render a match log as tables: the match at a glance, and one deal trick by trick.

The records come validated (``arena.matchlog.read_log``), but their text is the bots' and the
log's: every string from a record reaches the terminal through ``brandeln_cli.terminal_text``
(``plain`` for cells and lines, ``markup`` inside titles and headers, which rich parses).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from arena.matchlog import public_events
from brandeln_cli.terminal_text import markup, plain, safe

Record = dict[str, Any]

_SUIT_STYLE = {"C": "green", "S": "blue", "H": "red", "D": "yellow"}
_SUIT_NAME = {"C": "clubs", "S": "spades", "H": "hearts", "D": "diamonds"}


def card_text(cards: str) -> Text:
    """Cards in notation, each coloured by suit."""
    text = Text()
    for n, card in enumerate(cards.split()):
        if n:
            text.append(" ")
        text.append(safe(card), style=_SUIT_STYLE.get(card[:1], ""))
    return text


def _seat_names(header: Record) -> list[str]:
    """``seat:registered name`` per seat (raw: escape where printed)."""
    return [f"{s['seat']}:{s['bot_name']}" for s in header["seats"]]


def _bot_cell(entry: Record) -> Text:
    """The registered name, and beside it what the bot's Hello called it, if that differs."""
    cell = plain(entry["bot_name"])
    hello = entry.get("hello_name") or ""
    if hello and hello != entry["bot_name"]:
        cell.append(f" (hello: {safe(hello)})", style="dim")
    return cell


def _footer(records: Sequence[Record]) -> Record | None:
    return next((r for r in records if r["type"] == "footer"), None)


def match_overview(records: Sequence[Record]) -> RenderableType:
    """The match: seats and result, and one row per deal."""
    header = records[0]
    names = _seat_names(header)
    footer = _footer(records)
    result = Table(
        title=f"match {markup(header['match_id'])} ({markup(header['ruleset'])})", expand=False
    )
    for column in ("seat", "bot", "chips", "rank", "strikes", "forfeited"):
        result.add_column(column, justify="right" if column != "bot" else "left")
    for seat, entry in enumerate(header["seats"]):
        if footer is None:
            result.add_row(str(seat), _bot_cell(entry), "-", "-", "-", "-")
            continue
        ranks = footer.get("ranks") or []
        result.add_row(
            str(seat),
            _bot_cell(entry),
            f"{footer['balances'][seat]:+d}",
            str(ranks[seat]) if ranks else "-",
            str(footer["strikes"][seat]),
            "yes" if seat in footer["forfeited"] else "",
        )
    status = safe(footer["status"]) if footer else "incomplete (no footer)"
    deals = Table(title="deals", expand=False)
    for column in ("deal", "dealer", "soloist", "contract", "trump", "tricks", "made"):
        deals.add_column(column, justify="right")
    for name in names:
        deals.add_column(markup(name), justify="right")
    for ended in (r for r in records if r["type"] == "event" and r["kind"] == "deal_ended"):
        soloist = ended["soloist"]
        deals.add_row(
            str(ended["deal"]),
            str(_dealer_of(records, ended["deal"])),
            "-" if soloist is None else plain(names[soloist]),
            plain(ended["contract"] or ("passed out" if ended["passed_out"] else "-")),
            plain(ended["trump"] or "-"),
            " ".join(str(t) for t in ended["tricks_won"]),
            {True: "yes", False: "no", None: "-"}[ended["made"]],
            *(f"{p:+d}" for p in ended["payments"]),
        )
    return Group(result, Text(f"status: {status}"), deals)


def _dealer_of(records: Sequence[Record], deal: int) -> int:
    for record in records:
        if record["type"] == "deal" and record["deal_number"] == deal:
            return int(record["dealer"])
    return -1


def deal_detail(records: Sequence[Record], deal: int) -> RenderableType:
    """One deal: the hands, the auction, trump, every trick with leader and winner, settlement."""
    header = records[0]
    names = _seat_names(header)
    dealt = next((r for r in records if r["type"] == "deal" and r["deal_number"] == deal), None)
    if dealt is None:
        played = [r["deal_number"] for r in records if r["type"] == "deal"]
        raise KeyError(f"match has no deal {deal}; deals: {', '.join(map(str, played))}")
    events = [e for e in public_events(records) if e["deal"] == deal]
    hands = Table(title=f"deal {deal}: hands (dealer {markup(names[dealt['dealer']])})")
    hands.add_column("seat")
    hands.add_column("cards")
    for seat, cards in enumerate(dealt["hands"]):
        hands.add_row(plain(names[seat]), card_text(cards))
    if dealt.get("blind"):
        hands.add_row("blind", card_text(dealt["blind"]))
    auction = Text("auction: ")
    auction.append(
        safe(", ".join(f"{names[e['seat']]} {e['bid']}" for e in events if e["kind"] == "bid_made"))
    )
    lines: list[RenderableType] = [hands, auction]
    for event in events:
        if event["kind"] == "contract_set":
            soloist = event["soloist"]
            who = "nobody" if soloist is None else names[soloist]
            note = " (passed out)" if event["passed_out"] else ""
            lines.append(plain(f"contract: {event['contract'] or '-'} by {who}{note}"))
        elif event["kind"] == "trump_named":
            lines.append(plain(f"trump: {_SUIT_NAME.get(event['suit'], event['suit'])}"))
    tricks = Table(title="tricks")
    for column in ("#", "leader", "cards in play order", "winner"):
        tricks.add_column(column)
    for event in events:
        if event["kind"] == "trick_taken":
            tricks.add_row(
                str(event["trick"]),
                plain(names[event["leader"]]),
                card_text(event["cards"]),
                plain(names[event["winner"]]),
            )
    lines.append(tricks)
    penalties = [r for r in records if r["type"] == "penalty" and r["deal"] == deal]
    for penalty in penalties:
        lines.append(
            plain(
                f"penalty: {names[penalty['seat']]} {penalty['code']}: {penalty['reason']}",
                style="red",
            )
        )
    ended = next((e for e in events if e["kind"] == "deal_ended"), None)
    if ended is not None:
        settle = Table(title="settlement")
        for column in ("seat", "tricks", "chips"):
            settle.add_column(column, justify="right")
        for seat, name in enumerate(names):
            settle.add_row(
                plain(name), str(ended["tricks_won"][seat]), f"{ended['payments'][seat]:+d}"
            )
        made = {True: "made", False: "failed", None: "no soloist"}[ended["made"]]
        lines.extend([settle, Text(f"result: {made}")])
    return Panel(Group(*lines), title=f"{markup(header['match_id'])} deal {deal}", expand=False)
