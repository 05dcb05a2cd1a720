"""The referee's database: bot identities, the admin token, session history, the match index
and (on PostgreSQL) the match logs.

SQLAlchemy Core over SQLite (a file, WAL mode, the default) or PostgreSQL (its ``referee``
schema, shared by several referees): the same tables (:mod:`brandeln.arena.store.schema`), the same
queries, migrated on open by Alembic (:mod:`brandeln.arena.store.migrations`). Tokens are stored
only as SHA-256 hashes (they are random 256-bit secrets, so a plain hash is enough; no password
stretching is needed). An SQLite file and its WAL are private to the user (0600).

Every call is one short transaction; while the database cannot be reached a transaction is
retried with backoff (``brandeln.datastore.retry``: safe, a transaction either committed or did not,
and the writes that could run twice are idempotent), then a :class:`StoreError` says why.

Several referees on one PostgreSQL: ids never collide (bot and match ids are random, session
numbers come from a sequence), and each referee marks its rows with its own ``referee_id`` and
holds an advisory lock on it while it runs, so a referee's start-up recovery aborts and closes
only what referees that are gone left running.

This module is the store's front: :class:`RefereeStore` composes one part per topic, each in a
module of its own on the base that opens the database and runs its transactions
(:mod:`brandeln.arena.store.base`): bots and their tokens (:mod:`brandeln.arena.store.bots`), the
admin token (:mod:`brandeln.arena.store.admin`), session history
(:mod:`brandeln.arena.store.sessions`) and the match index
(:mod:`brandeln.arena.store.match_index`).
"""

from __future__ import annotations

from brandeln.arena.logrecords import MatchStatus
from brandeln.arena.store.admin import AdminTokenMixin

# LEGACY_REVISIONS, SCHEMA_VERSION_1 and V1_SCHEMA are not exported, but stay reachable here
# as before the split; now_ms is exported, for brandeln.arena.table takes it from here.
from brandeln.arena.store.base import (  # noqa: F401
    LEGACY_REVISIONS,
    SCHEMA_VERSION_1,
    V1_SCHEMA,
    now_ms,
    open_target,
)
from brandeln.arena.store.bots import BotIdentitiesMixin, BotRecord, hash_token, new_token
from brandeln.arena.store.match_index import MatchIndex, MatchRecord
from brandeln.arena.store.sessions import SessionsMixin

__all__ = [
    "BotRecord",
    "MatchRecord",
    "RefereeStore",
    "hash_token",
    "new_token",
    "now_ms",
    "open_target",
]


class RefereeStore(BotIdentitiesMixin, AdminTokenMixin, SessionsMixin, MatchIndex):
    """The referee's database (an SQLite file or a PostgreSQL URL) and its match logs.

    ``logs_dir`` is where an SQLite referee writes its logs (default: ``logs/`` beside the
    file); a PostgreSQL referee keeps them in the database.
    """

    def record_match(self, match: MatchRecord) -> None:
        # A match's start is where this referee's liveness lock must be held (see
        # _refresh_liveness): a referee starting up meanwhile must not count it as gone.
        if match.status is MatchStatus.RUNNING:
            self._refresh_liveness()
        super().record_match(match)
