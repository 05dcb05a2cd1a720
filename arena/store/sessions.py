"""Session history in the referee store: each ``Play`` stream's session opened and closed,
numbered by a sequence no two referees share, the sessions a stopped referee left open closed
at start-up, and only each bot's newest closed sessions kept. A part of
:class:`brandeln.arena.store.database.RefereeStore`, kept apart by topic.
"""

from __future__ import annotations

import sqlalchemy
from sqlalchemy import Connection, func, select, update

from brandeln.arena.limits import ProtocolLimits
from brandeln.arena.store.base import RefereeStoreBase, now_ms
from brandeln.arena.store.schema import SESSION_NUMBERS, SESSIONS
from brandeln.datastore.upsert import dialect_insert

__all__ = ["SessionsMixin"]

_KEEP_PER_BOT = ProtocolLimits.closed_sessions_kept_per_bot


class SessionsMixin(RefereeStoreBase):
    """The session history's queries of :class:`brandeln.arena.store.database.RefereeStore`."""

    def next_session_number(self) -> int:
        """A session number no referee on this database has used (PostgreSQL's sequence)."""
        return int(
            self.transact(
                lambda conn: conn.execute(select(SESSION_NUMBERS.next_value())).scalar_one(),
                "number a session",
            )
        )

    def session_opened(self, session_id: str, bot_id: str, bot_version: str, peer: str) -> None:
        row = {
            "session_id": session_id,
            "bot_id": bot_id,
            "bot_version": bot_version,
            "peer": peer,
            "opened_at": now_ms(),
            "referee_id": self.referee_id,
        }
        # Idempotent: a retry after a commit whose answer was lost inserts nothing.
        self.transact(
            lambda conn: conn.execute(
                dialect_insert(conn, SESSIONS).values(row).on_conflict_do_nothing()
            ),
            "record a session",
        )

    def session_closed(self, session_id: str, keep_per_bot: int = _KEEP_PER_BOT) -> None:
        """Record a session's end, and forget that bot's closed sessions but the newest
        ``keep_per_bot``: a bot that reconnects in a loop would otherwise fill the disk."""

        def close(conn: Connection) -> None:
            conn.execute(
                update(SESSIONS)
                .where(SESSIONS.c.session_id == session_id)
                .values(closed_at=now_ms())
            )
            bot = select(SESSIONS.c.bot_id).where(SESSIONS.c.session_id == session_id)
            _prune_sessions(conn, keep_per_bot, SESSIONS.c.bot_id == bot.scalar_subquery())

        self.transact(close, "record a session's end")

    def last_session_number(self) -> int:
        """The highest n of the session ids ``s<n>`` recorded so far (0 for none), so that a
        restarted referee numbers its sessions on from there instead of reusing ids."""
        number = sqlalchemy.cast(func.substr(SESSIONS.c.session_id, 2), sqlalchemy.BigInteger)
        query = select(func.max(number)).where(SESSIONS.c.session_id.like("s%"))
        return int(self.read(lambda conn: conn.execute(query).scalar(), "read sessions") or 0)

    def close_open_sessions(self, keep_per_bot: int = _KEEP_PER_BOT) -> int:
        """At start-up: sessions left open by a referee that died are over (and, as at every
        close, only the newest ``keep_per_bot`` closed sessions of each bot are kept).
        Sessions of another live referee on a shared database stay open."""

        def close(conn: Connection) -> int:
            owners = conn.execute(
                select(SESSIONS.c.referee_id).where(SESSIONS.c.closed_at.is_(None)).distinct()
            )
            gone = self._gone(conn, {row[0] for row in owners})
            closed = 0
            if gone:
                closed = conn.execute(
                    update(SESSIONS)
                    .where(SESSIONS.c.closed_at.is_(None), _owned_by(SESSIONS, gone))
                    .values(closed_at=now_ms())
                ).rowcount
            _prune_sessions(conn, keep_per_bot, None)
            return closed

        return self.transact(close, "close the sessions of a stopped referee")


def _owned_by(table: sqlalchemy.Table, owners: list[str | None]) -> sqlalchemy.ColumnElement[bool]:
    named = [owner for owner in owners if owner is not None]
    conditions = []
    if named:
        conditions.append(table.c.referee_id.in_(named))
    if None in owners:
        conditions.append(table.c.referee_id.is_(None))
    return sqlalchemy.or_(*conditions)


def _prune_sessions(
    conn: Connection, keep_per_bot: int, bot: sqlalchemy.ColumnElement[bool] | None
) -> None:
    """Delete the closed sessions of each bot (or of one) but its newest ``keep_per_bot``
    (session ids are s<n>, n rising). The newest session overall is kept, so
    last_session_number() still sees it."""
    number = sqlalchemy.cast(func.substr(SESSIONS.c.session_id, 2), sqlalchemy.BigInteger)
    newness = (
        func.row_number()
        .over(partition_by=SESSIONS.c.bot_id, order_by=number.desc())
        .label("newness")
    )
    ranked = select(SESSIONS.c.session_id, newness).where(SESSIONS.c.closed_at.is_not(None))
    if bot is not None:
        ranked = ranked.where(bot)
    old = ranked.subquery()
    conn.execute(
        SESSIONS.delete().where(
            SESSIONS.c.session_id.in_(select(old.c.session_id).where(old.c.newness > keep_per_bot))
        )
    )
