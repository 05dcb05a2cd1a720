"""The referee's tables, one SQLAlchemy Core definition for SQLite and PostgreSQL.

No Table names a schema: on PostgreSQL the engine's ``schema_translate_map`` puts them all in
the ``referee`` schema (the ladder's ``matches`` lives in ``ladder``), on SQLite they are the
file's own. The migrations in :mod:`brandeln.arena.store.migrations` build exactly these tables; a
test checks that the two never drift apart.

Times are milliseconds since the epoch (BigInteger: PostgreSQL's INTEGER is 32 bits). The
tuples of a match row (bot ids, names, balances...) stay JSON text, as in the SQLite files of
schema version 1, so a copied database compares row for row.
"""

from __future__ import annotations

from typing import Final

from sqlalchemy import (
    BigInteger,
    Column,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    Sequence,
    Table,
    Text,
)

__all__ = [
    "BOTS",
    "MATCHES",
    "MATCH_BOTS",
    "MATCH_LOGS",
    "METADATA",
    "SESSIONS",
    "SESSION_NUMBERS",
    "SETTINGS",
    "SIDE",
]

SIDE: Final = "referee"  # the PostgreSQL schema, and the datastore's name for this side

METADATA = MetaData()

BOTS = Table(
    "bots",
    METADATA,
    Column("bot_id", Text, primary_key=True),
    Column("name", Text, nullable=False, unique=True),
    Column("token_hash", Text, nullable=False, unique=True),
    Column("created_at", BigInteger, nullable=False),
    Column("revoked", Integer, nullable=False, server_default="0"),
)

SETTINGS = Table(
    "settings",
    METADATA,
    Column("key", Text, primary_key=True),
    Column("value", Text, nullable=False),
)

SESSIONS = Table(
    "sessions",
    METADATA,
    Column("session_id", Text, primary_key=True),
    Column("bot_id", Text, ForeignKey("bots.bot_id"), nullable=False),
    Column("bot_version", Text, nullable=False),
    Column("peer", Text, nullable=False),
    Column("opened_at", BigInteger, nullable=False),
    Column("closed_at", BigInteger),
    # The referee process that opened it (several share one PostgreSQL): at start-up a referee
    # closes only the sessions of referees that are gone. NULL: from schema version 1.
    Column("referee_id", Text),
    Index("sessions_bot", "bot_id"),
)

MATCHES = Table(
    "matches",
    METADATA,
    Column("match_id", Text, primary_key=True),
    Column("ruleset", Text, nullable=False),
    Column("bot_ids", Text, nullable=False),
    Column("bot_names", Text, nullable=False),
    Column("balances", Text, nullable=False),
    Column("ranks", Text, nullable=False),
    Column("forfeited", Text, nullable=False),
    Column("strikes", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("deals_played", Integer, nullable=False),
    Column("started_at", BigInteger, nullable=False),
    Column("ended_at", BigInteger, nullable=False),
    # A file for SQLite; "match_logs:<match id>" for a log in MATCH_LOGS.
    Column("log_path", Text, nullable=False),
    Column("referee_id", Text),  # who runs it (see sessions.referee_id)
    Index("matches_started", "started_at"),
    Index("matches_status", "status"),
)

MATCH_BOTS = Table(
    "match_bots",
    METADATA,
    Column("match_id", Text, ForeignKey("matches.match_id"), nullable=False),
    Column("bot_id", Text, nullable=False),
    # The match's start again, so one bot's newest matches are an index range (bot, start)
    # instead of a sort of all its matches (`matches list --bot` at 100k matches).
    Column("started_at", BigInteger, nullable=False, server_default="0"),
    PrimaryKeyConstraint("match_id", "bot_id"),
    Index("match_bots_newest", "bot_id", "started_at", "match_id"),
)

# The match logs of a PostgreSQL referee: the bytes a log file would hold, one chunk per flush
# (the header, then each deal at its end, then the footer), so any machine reads them.
MATCH_LOGS = Table(
    "match_logs",
    METADATA,
    Column("match_id", Text, nullable=False),
    Column("chunk", Integer, nullable=False),
    Column("body", LargeBinary, nullable=False),
    PrimaryKeyConstraint("match_id", "chunk"),
)

# Session numbers (ids "s<n>") shared by every referee on one PostgreSQL database; SQLite has
# one referee per file (brandeln.arena.datalock), which numbers on from the highest recorded.
SESSION_NUMBERS = Sequence("session_numbers", metadata=METADATA)
