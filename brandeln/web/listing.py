"""Matches as rows of a list (the index's newest matches, a bot's), pages of a list that grows,
and times as the pages print them.

>>> utc_text(1_796_142_000_000), utc_text(0)
('2026-12-01 16:20 UTC', '-')
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

from brandeln.arena.store.match_index import MatchRecord
from brandeln.web.stores import Stores

__all__ = ["MATCHES_PER_PAGE", "MatchRow", "Paging", "SeatCell", "match_row", "recent_matches"]

MATCHES_PER_PAGE: Final = 25


def utc_text(ms: int) -> str:
    """Milliseconds since the epoch as ``2026-12-01 16:20 UTC`` ('-' for 0)."""
    if ms <= 0:
        return "-"
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")


@dataclass(frozen=True, slots=True)
class Paging:
    """One page of a list that grows: which page, and whether there are others."""

    page: int
    has_previous: bool
    has_next: bool


@dataclass(frozen=True, slots=True)
class SeatCell:
    seat: int
    bot_id: str
    name: str
    chips: int | None


@dataclass(frozen=True, slots=True)
class MatchRow:
    match_id: str
    ruleset: str
    status: str
    deals_played: int
    started: str
    seats: tuple[SeatCell, ...]


def match_row(record: MatchRecord) -> MatchRow:
    seats = tuple(
        SeatCell(
            seat,
            bot_id,
            record.bot_names[seat] if seat < len(record.bot_names) else bot_id,
            record.balances[seat] if seat < len(record.balances) else None,
        )
        for seat, bot_id in enumerate(record.bot_ids)
    )
    return MatchRow(
        record.match_id,
        record.ruleset,
        record.status.value,
        record.deals_played,
        utc_text(record.started_at),
        seats,
    )


def recent_matches(
    stores: Stores, page: int, bot_id: str = "", per_page: int = MATCHES_PER_PAGE
) -> tuple[list[MatchRow], Paging]:
    """The newest matches of every referee store (of ``bot_id`` only, if given), one page.

    The stores list newest first with a limit; a page takes the first ``page * per_page``
    rows of each (the index on start time keeps that cheap) and merges them.
    """
    wanted = page * per_page + 1
    rows = [row for store in stores.referees for row in store.matches(bot_id, wanted)]
    rows.sort(key=lambda row: (row.started_at, row.match_id), reverse=True)
    shown = rows[(page - 1) * per_page : page * per_page]
    return [match_row(row) for row in shown], Paging(page, page > 1, len(rows) > page * per_page)
