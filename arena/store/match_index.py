"""The match index of the referee's database: one row per match, running or ended.

A part of :class:`brandeln.arena.store.database.RefereeStore`, kept apart by topic.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy
from sqlalchemy import Connection, func, select, update

from brandeln.arena.errors import NotFoundError, StoreError
from brandeln.arena.logrecords import MatchStatus
from brandeln.arena.store.base import RefereeStoreBase
from brandeln.arena.store.schema import MATCH_BOTS, MATCHES
from brandeln.datastore.keys import can_name_a_row
from brandeln.datastore.upsert import dialect_insert, insert_for

# dialect_insert: brandeln.datastore.upsert's, exported here as it was before it moved there.
__all__ = ["MatchIndex", "MatchRecord", "dialect_insert", "match_row"]

# The columns of a MatchRecord, in its order (the table has referee_id besides).
_COLUMNS = [
    MATCHES.c[name]
    for name in (
        "match_id",
        "ruleset",
        "bot_ids",
        "bot_names",
        "balances",
        "ranks",
        "forfeited",
        "strikes",
        "status",
        "deals_played",
        "started_at",
        "ended_at",
        "log_path",
    )
]
# What a later record_match of the same match changes (the rest is set at its start).
_UPDATED = ("balances", "ranks", "forfeited", "strikes", "status", "deals_played", "ended_at")


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


class MatchIndex(RefereeStoreBase):
    """The match index's queries of :class:`brandeln.arena.store.database.RefereeStore`."""

    def record_match(self, match: MatchRecord) -> None:
        """Insert or update a match's index row (running, then finished or aborted).

        Idempotent (an upsert), so a retry after a commit whose answer was lost changes
        nothing."""
        row = match_row(match)
        row["referee_id"] = self.referee_id

        def write(conn: Connection) -> None:
            # Statements built once per dialect, the values bound as parameters: building an
            # upsert costs more than running it (a referee writes two per match).
            upsert, bots = _record_statements(conn.dialect.name)
            conn.execute(upsert, row)
            # executemany of one cached statement (a multi-row VALUES is compiled anew).
            conn.execute(
                bots,
                [
                    {"match_id": match.match_id, "bot_id": b, "started_at": match.started_at}
                    for b in sorted(set(match.bot_ids))
                ],
            )

        self.transact(write, f"record match {match.match_id}")

    def match(self, match_id: str) -> MatchRecord:
        if not can_name_a_row(match_id):
            raise NotFoundError(f"no match with id {match_id!r}")
        query = select(*_COLUMNS).where(MATCHES.c.match_id == match_id)
        row = self.read(lambda conn: conn.execute(query).first(), "read a match")
        if row is None:
            raise NotFoundError(f"no match with id {match_id!r}")
        return _match_from_row(tuple(row), self.where)

    def matches(self, bot_id: str = "", limit: int = 50, id_prefix: str = "") -> list[MatchRecord]:
        """Newest first; only ``bot_id``'s matches, and only ids starting with ``id_prefix``."""
        if not (can_name_a_row(bot_id) and can_name_a_row(id_prefix)):
            return []
        query = select(*_COLUMNS)
        # Newest first along an index: matches(started_at), or match_bots(bot, started_at).
        newest: tuple[sqlalchemy.ColumnElement[Any], ...] = (
            MATCHES.c.started_at.desc(),
            MATCHES.c.match_id.desc(),
        )
        if bot_id:
            query = query.join(MATCH_BOTS, MATCH_BOTS.c.match_id == MATCHES.c.match_id).where(
                MATCH_BOTS.c.bot_id == bot_id
            )
            newest = (MATCH_BOTS.c.started_at.desc(), MATCH_BOTS.c.match_id.desc())
        if id_prefix:
            # substr, not LIKE: "_" in every match id is a LIKE wildcard.
            query = query.where(func.substr(MATCHES.c.match_id, 1, len(id_prefix)) == id_prefix)
        query = query.order_by(*newest).limit(limit)
        rows = self.read(lambda conn: conn.execute(query).all(), "list matches")
        return [_match_from_row(tuple(row), self.where) for row in rows]

    def mark_running_aborted(self) -> int:
        """At start-up: matches left 'running' by a referee that died were aborted (on a shared
        database, only those of referees that are gone: another live one's play on)."""

        def mark(conn: Connection) -> int:
            owners = conn.execute(
                select(MATCHES.c.referee_id)
                .where(MATCHES.c.status == MatchStatus.RUNNING.value)
                .distinct()
            )
            gone = self._gone(conn, {row[0] for row in owners})
            if not gone:
                return 0
            named = [owner for owner in gone if owner is not None]
            owned = []
            if named:
                owned.append(MATCHES.c.referee_id.in_(named))
            if None in gone:
                owned.append(MATCHES.c.referee_id.is_(None))
            return int(
                conn.execute(
                    update(MATCHES)
                    .where(MATCHES.c.status == MatchStatus.RUNNING.value, sqlalchemy.or_(*owned))
                    .values(status=MatchStatus.ABORTED.value, ended_at=int(time.time() * 1000))
                ).rowcount
            )

        return self.transact(mark, "mark the matches of a stopped referee aborted")


def match_row(match: MatchRecord) -> dict[str, Any]:
    """A MatchRecord as the index row's columns (the tuples as JSON text)."""
    return {
        "match_id": match.match_id,
        "ruleset": match.ruleset,
        "bot_ids": json.dumps(match.bot_ids),
        "bot_names": json.dumps(match.bot_names),
        "balances": json.dumps(match.balances),
        "ranks": json.dumps(match.ranks),
        "forfeited": json.dumps(match.forfeited),
        "strikes": json.dumps(match.strikes),
        "status": match.status.value,
        "deals_played": match.deals_played,
        "started_at": match.started_at,
        "ended_at": match.ended_at,
        "log_path": match.log_path,
    }


@functools.lru_cache(maxsize=4)
def _record_statements(dialect: str) -> tuple[Any, Any]:
    """record_match's statements: the index row's upsert, the match_bots rows' insert."""
    insert = insert_for(dialect, MATCHES)
    upsert = insert.on_conflict_do_update(
        index_elements=["match_id"], set_={name: insert.excluded[name] for name in _UPDATED}
    )
    return upsert, insert_for(dialect, MATCH_BOTS).on_conflict_do_nothing()


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in json.loads(text))


def _strs(text: str) -> tuple[str, ...]:
    return tuple(str(x) for x in json.loads(text))


def _match_from_row(row: Sequence[object], where: str) -> MatchRecord:
    try:
        return _decode_match_row(row)
    except (ValueError, TypeError) as error:
        raise StoreError(
            f"{where}: the index row of match {row[0]!r} is damaged ({error})"
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
