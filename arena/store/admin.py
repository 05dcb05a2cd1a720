"""The admin token in the referee store: the hash of the token that the Admin service accepts
(one row of ``settings``; the token itself is never stored). A part of
:class:`brandeln.arena.store.database.RefereeStore`, kept apart by topic.
"""

from __future__ import annotations

from sqlalchemy import Connection, select

from brandeln.arena.store.base import RefereeStoreBase
from brandeln.arena.store.bots import hash_token
from brandeln.arena.store.schema import SETTINGS
from brandeln.datastore.upsert import dialect_insert

__all__ = ["AdminTokenMixin"]


class AdminTokenMixin(RefereeStoreBase):
    """The admin token's queries of :class:`brandeln.arena.store.database.RefereeStore`."""

    def admin_token_hash(self) -> str | None:
        def read(conn: Connection) -> str | None:
            value = conn.execute(
                select(SETTINGS.c.value).where(SETTINGS.c.key == "admin_token_hash")
            ).scalar()
            return None if value is None else str(value)

        return self.read(read, "read the admin token")

    def set_admin_token(self, token: str) -> None:
        row = {"key": "admin_token_hash", "value": hash_token(token)}

        def write(conn: Connection) -> None:
            statement = dialect_insert(conn, SETTINGS).values(row)
            conn.execute(
                statement.on_conflict_do_update(
                    index_elements=["key"], set_={"value": statement.excluded.value}
                )
            )

        self.transact(write, "store the admin token")
