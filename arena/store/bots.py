"""Bot identities in the referee store: registering a bot, finding it by id or by token,
rotating its token and revoking it. Tokens are kept only as SHA-256 hashes (they are random
256-bit secrets, so a plain hash is enough). A part of
:class:`brandeln.arena.store.database.RefereeStore`, kept apart by topic.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

import sqlalchemy
from sqlalchemy import Connection, select, update

from brandeln.arena.errors import BotNameTakenError, BotRevokedError, NotFoundError
from brandeln.arena.names import check_name
from brandeln.arena.store.base import RefereeStoreBase, now_ms
from brandeln.arena.store.schema import BOTS
from brandeln.datastore.keys import can_name_a_row
from brandeln.datastore.upsert import dialect_insert

__all__ = ["BotIdentitiesMixin", "BotRecord", "hash_token", "new_token"]


def new_token() -> str:
    """A fresh secret token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """What the store keeps of a token: its SHA-256, hex."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class BotRecord:
    """A registered bot identity (its token is not part of it: the store keeps only a hash)."""

    bot_id: str
    name: str
    created_at: int
    revoked: bool


class BotIdentitiesMixin(RefereeStoreBase):
    """The bot identities' queries of :class:`brandeln.arena.store.database.RefereeStore`."""

    def register_bot(self, name: str, token: str | None = None) -> tuple[BotRecord, str]:
        """Create a bot identity; returns it and its token (which is stored only as a hash).

        ``token``: the one to accept (`bot check --token`, a bot configured already); by
        default a fresh one.
        """
        name = check_name(name)  # ValueError: empty, too long, or control characters
        token = token or new_token()
        record = BotRecord(f"bot_{uuid.uuid4().hex[:12]}", name, now_ms(), False)
        row = {
            "bot_id": record.bot_id,
            "name": record.name,
            "token_hash": hash_token(token),
            "created_at": record.created_at,
        }

        def insert(conn: Connection) -> bool:
            insert = dialect_insert(conn, BOTS).values(row).on_conflict_do_nothing()
            if conn.execute(insert.returning(BOTS.c.bot_id)).first() is not None:
                return True
            # Nothing inserted: the name is taken, or this very row is there already (a retry
            # after a commit whose answer was lost).
            mine = select(BOTS.c.bot_id).where(BOTS.c.token_hash == row["token_hash"])
            return conn.execute(mine).first() is not None

        if not self.transact(insert, "register a bot"):
            raise BotNameTakenError(f"a bot named {name!r} is already registered")
        return record, token

    def _bots(self, where: sqlalchemy.ColumnElement[bool] | None = None) -> list[BotRecord]:
        query = select(BOTS.c.bot_id, BOTS.c.name, BOTS.c.created_at, BOTS.c.revoked)
        if where is not None:
            query = query.where(where)
        query = query.order_by(BOTS.c.created_at, BOTS.c.name)

        def read(conn: Connection) -> list[BotRecord]:
            return [BotRecord(r[0], r[1], int(r[2]), bool(r[3])) for r in conn.execute(query)]

        return self.read(read, "read the bots")

    def bot_for_token(self, token: str) -> BotRecord | None:
        found = self._bots(BOTS.c.token_hash == hash_token(token))
        if not found or found[0].revoked:
            return None
        return found[0]

    def bot(self, bot_id: str) -> BotRecord:
        found = self._bots(BOTS.c.bot_id == bot_id) if can_name_a_row(bot_id) else []
        if not found:
            raise NotFoundError(f"no bot with id {bot_id!r}")
        return found[0]

    def bots(self) -> list[BotRecord]:
        return self._bots()

    def known_bot_ids(self, bot_ids: Iterable[str]) -> set[str]:
        """Which of ``bot_ids`` are registered (revoked ones included, as :meth:`bot`): one
        query for a match's seats, where a query per seat cost a match start milliseconds."""
        wanted = {bot_id for bot_id in bot_ids if can_name_a_row(bot_id)}
        if not wanted:
            # Every seat's bot is connected (the usual case): no query, and none built (a
            # select costs a tenth of a match start to build).
            return set()
        query = select(BOTS.c.bot_id).where(BOTS.c.bot_id.in_(wanted))

        def read(conn: Connection) -> set[str]:
            return {str(row[0]) for row in conn.execute(query)}

        return self.read(read, "read the bots")

    def rotate_token(self, bot_id: str) -> str:
        """Give a bot a new token (stored only as a hash) in place of its old one; returns it.

        Raises NotFoundError for an unknown bot, BotRevokedError for a revoked one (a revoked
        identity stays revoked: register a new one).
        """
        token = new_token()
        if not can_name_a_row(bot_id):
            raise NotFoundError(f"no bot with id {bot_id!r}")

        def rotate(conn: Connection) -> None:
            revoked = conn.execute(select(BOTS.c.revoked).where(BOTS.c.bot_id == bot_id)).first()
            if revoked is None:
                raise NotFoundError(f"no bot with id {bot_id!r}")
            if revoked[0]:
                raise BotRevokedError(f"bot {bot_id} is revoked; register a new identity")
            conn.execute(
                update(BOTS).where(BOTS.c.bot_id == bot_id).values(token_hash=hash_token(token))
            )

        self.transact(rotate, "rotate a bot's token")
        return token

    def revoke_bot(self, bot_id: str) -> None:
        if not can_name_a_row(bot_id):
            raise NotFoundError(f"no bot with id {bot_id!r}")

        def revoke(conn: Connection) -> None:
            done = conn.execute(update(BOTS).where(BOTS.c.bot_id == bot_id).values(revoked=1))
            if done.rowcount == 0:
                raise NotFoundError(f"no bot with id {bot_id!r}")

        self.transact(revoke, "revoke a bot")
