"""The match index of the referee's database: one row per match, running or ended.

A part of :class:`arena.store.RefereeStore` (its base class), kept apart by topic.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from arena.errors import NotFoundError, StoreError
from arena.logrecords import MatchStatus

__all__ = ["MatchIndex", "MatchRecord"]


@dataclass(frozen=True)
class MatchRecord:
    """One row of the match index."""

    match_id: str
    ruleset: str
    bot_ids: tuple[str, ...]
    bot_names: tuple[str, ...]
    balances: tuple[int, ...]
    ranks: tuple[int, ...]
    forfeited: tuple[int, ...]
    strikes: tuple[int, ...]
    status: MatchStatus
    deals_played: int
    started_at: int
    ended_at: int
    log_path: str


class MatchIndex:
    """The match index's queries; the store gives the connection and its transactions."""

    path: Path
    _db: sqlite3.Connection

    def _transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def record_match(self, match: MatchRecord) -> None:
        """Insert or update a match's index row (running, then finished or aborted)."""
        with self._transaction() as db:
            db.execute(
                "INSERT INTO matches VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?) "
                "ON CONFLICT(match_id) DO UPDATE SET balances=excluded.balances, "
                "ranks=excluded.ranks, forfeited=excluded.forfeited, strikes=excluded.strikes, "
                "status=excluded.status, deals_played=excluded.deals_played, "
                "ended_at=excluded.ended_at",
                (
                    match.match_id,
                    match.ruleset,
                    json.dumps(match.bot_ids),
                    json.dumps(match.bot_names),
                    json.dumps(match.balances),
                    json.dumps(match.ranks),
                    json.dumps(match.forfeited),
                    json.dumps(match.strikes),
                    match.status,
                    match.deals_played,
                    match.started_at,
                    match.ended_at,
                    match.log_path,
                ),
            )
            db.executemany(
                "INSERT OR IGNORE INTO match_bots(match_id, bot_id) VALUES(?,?)",
                [(match.match_id, bot_id) for bot_id in match.bot_ids],
            )

    def match(self, match_id: str) -> MatchRecord:
        row = self._db.execute("SELECT * FROM matches WHERE match_id=?", (match_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no match with id {match_id!r}")
        return _match_from_row(row, self.path)

    def matches(self, bot_id: str = "", limit: int = 50, id_prefix: str = "") -> list[MatchRecord]:
        """Newest first; only ``bot_id``'s matches, and only ids starting with ``id_prefix``."""
        # substr, not LIKE: "_" in every match id is a LIKE wildcard.
        prefix = "substr(m.match_id, 1, ?) = ?"
        prefix_args = (len(id_prefix), id_prefix)
        if bot_id:
            rows = self._db.execute(
                "SELECT m.* FROM matches m JOIN match_bots b USING(match_id) WHERE b.bot_id=? "
                f"AND {prefix} ORDER BY m.started_at DESC, m.match_id DESC LIMIT ?",
                (bot_id, *prefix_args, limit),
            ).fetchall()
        else:
            rows = self._db.execute(
                f"SELECT * FROM matches m WHERE {prefix} "
                "ORDER BY started_at DESC, match_id DESC LIMIT ?",
                (*prefix_args, limit),
            ).fetchall()
        return [_match_from_row(row, self.path) for row in rows]

    def mark_running_aborted(self) -> int:
        """At start-up: matches left 'running' by a referee that died were aborted."""
        with self._transaction() as db:
            return db.execute(
                "UPDATE matches SET status='aborted', ended_at=? WHERE status='running'",
                (int(time.time() * 1000),),
            ).rowcount


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in json.loads(text))


def _strs(text: str) -> tuple[str, ...]:
    return tuple(str(x) for x in json.loads(text))


def _match_from_row(row: Sequence[object], path: Path) -> MatchRecord:
    try:
        return _decode_match_row(row)
    except (ValueError, TypeError) as error:
        raise StoreError(
            f"{path}: the index row of match {row[0]!r} is damaged ({error})"
        ) from None


def _decode_match_row(row: Sequence[object]) -> MatchRecord:
    return MatchRecord(
        match_id=str(row[0]),
        ruleset=str(row[1]),
        bot_ids=_strs(str(row[2])),
        bot_names=_strs(str(row[3])),
        balances=_ints(str(row[4])),
        ranks=_ints(str(row[5])),
        forfeited=_ints(str(row[6])),
        strikes=_ints(str(row[7])),
        status=MatchStatus(str(row[8])),
        deals_played=int(str(row[9])),
        started_at=int(str(row[10])),
        ended_at=int(str(row[11])),
        log_path=str(row[12]),
    )
