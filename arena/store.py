"""The referee's database: bot identities, the admin token, session history and the match index.

SQLite in WAL mode behind this one module. Tokens are stored only as SHA-256 hashes (they are
random 256-bit secrets, so a plain hash is enough; no password stretching is needed). The schema
is versioned with ``PRAGMA user_version`` and created on first use. The file and its WAL are
private to the user (0600).
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from arena.errors import BotNameTakenError, BotRevokedError, NotFoundError, StoreError
from arena.limits import ProtocolLimits
from arena.match_index import MatchIndex, MatchRecord
from arena.names import check_name
from datastore.private_files import private_sqlite
from datastore.sqlite_schema import missing_schema

__all__ = ["BotRecord", "MatchRecord", "RefereeStore", "hash_token", "new_token"]

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS bots (
    bot_id      TEXT PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    token_hash  TEXT NOT NULL UNIQUE,
    created_at  INTEGER NOT NULL,
    revoked     INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    session_id   TEXT PRIMARY KEY,
    bot_id       TEXT NOT NULL REFERENCES bots(bot_id),
    bot_version  TEXT NOT NULL,
    peer         TEXT NOT NULL,
    opened_at    INTEGER NOT NULL,
    closed_at    INTEGER
);
CREATE TABLE IF NOT EXISTS matches (
    match_id      TEXT PRIMARY KEY,
    ruleset       TEXT NOT NULL,
    bot_ids       TEXT NOT NULL,
    bot_names     TEXT NOT NULL,
    balances      TEXT NOT NULL,
    ranks         TEXT NOT NULL,
    forfeited     TEXT NOT NULL,
    strikes       TEXT NOT NULL,
    status        TEXT NOT NULL,
    deals_played  INTEGER NOT NULL,
    started_at    INTEGER NOT NULL,
    ended_at      INTEGER NOT NULL,
    log_path      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS matches_started ON matches(started_at);
CREATE INDEX IF NOT EXISTS sessions_bot ON sessions(bot_id);
CREATE TABLE IF NOT EXISTS match_bots (
    match_id  TEXT NOT NULL REFERENCES matches(match_id),
    bot_id    TEXT NOT NULL,
    PRIMARY KEY (match_id, bot_id)
);
"""


_KEEP_PER_BOT = ProtocolLimits.closed_sessions_kept_per_bot
# The closed sessions of each bot but its newest ? (session ids are s<n>, n rising). The newest
# session overall is kept, so last_session_number() still sees it.
_OLD_CLOSED_SESSIONS = """
SELECT session_id FROM (
    SELECT session_id, ROW_NUMBER() OVER (
        PARTITION BY bot_id ORDER BY CAST(substr(session_id, 2) AS INTEGER) DESC
    ) AS newness
    FROM sessions WHERE closed_at IS NOT NULL {bot}
) WHERE newness > ?"""


def now_ms() -> int:
    return int(time.time() * 1000)


def new_token() -> str:
    """A fresh secret token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class BotRecord:
    bot_id: str
    name: str
    created_at: int
    revoked: bool


class RefereeStore(MatchIndex):
    """The referee's SQLite database (one connection; the referee runs in one event loop)."""

    def __init__(self, path: Path) -> None:
        """Open (or create) the database; :class:`StoreError` when it is not a usable referee
        database: not SQLite, another program's, of a newer schema, or missing tables or
        columns. A refused file is left exactly as it was: nothing is written before the
        schema is known to be ours."""
        self.path = path
        try:
            # 0600 before SQLite opens it: the WAL and -shm files it creates take its mode.
            private_sqlite(path)
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as error:
            raise StoreError(f"cannot open the referee database {path}: {error}") from None
        try:
            self._migrate()
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
        except (sqlite3.DatabaseError, OSError) as error:
            self._db.close()
            raise StoreError(f"{path}: not a usable referee database ({error})") from None
        except StoreError:
            self._db.close()
            raise

    def _migrate(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has schema version {version}, newer than this referee's "
                f"{SCHEMA_VERSION}; upgrade brandeln-arena"
            )
        if version == 0:
            if self._db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                raise StoreError(f"{self.path}: an SQLite file, but not a referee database")
            # One script, one transaction: a crash here leaves an empty, unversioned file.
            self._db.executescript(
                f"BEGIN; {_SCHEMA} PRAGMA user_version={SCHEMA_VERSION}; COMMIT;"
            )
        else:
            missing = missing_schema(self._db, _SCHEMA)
            if missing:
                raise StoreError(
                    f"{self.path}: not a usable referee database (schema version {version} "
                    f"but {missing}); restore it from a backup or move it away to start afresh"
                )
        # Added within version 1 (the session history is pruned per bot); an index changes
        # no row, so older referees read the file as before.
        self._db.execute("CREATE INDEX IF NOT EXISTS sessions_bot ON sessions(bot_id)")

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def close(self) -> None:
        self._db.close()

    # --- admin token -----------------------------------------------------------------------
    def admin_token_hash(self) -> str | None:
        row = self._db.execute("SELECT value FROM settings WHERE key='admin_token_hash'").fetchone()
        return None if row is None else str(row[0])

    def set_admin_token(self, token: str) -> None:
        with self._transaction() as db:
            db.execute(
                "INSERT INTO settings(key, value) VALUES('admin_token_hash', ?) "
                "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                (hash_token(token),),
            )

    # --- bots ------------------------------------------------------------------------------
    def register_bot(self, name: str, token: str | None = None) -> tuple[BotRecord, str]:
        """Create a bot identity; returns it and its token (which is stored only as a hash).

        ``token``: the one to accept (`bot check --token`, a bot configured already); by
        default a fresh one.
        """
        name = check_name(name)  # ValueError: empty, too long, or control characters
        token = token or new_token()
        record = BotRecord(
            bot_id=f"bot_{uuid.uuid4().hex[:12]}", name=name, created_at=now_ms(), revoked=False
        )
        try:
            with self._transaction() as db:
                db.execute(
                    "INSERT INTO bots(bot_id, name, token_hash, created_at) VALUES(?,?,?,?)",
                    (record.bot_id, record.name, hash_token(token), record.created_at),
                )
        except sqlite3.IntegrityError:
            raise BotNameTakenError(f"a bot named {name!r} is already registered") from None
        return record, token

    def bot_for_token(self, token: str) -> BotRecord | None:
        row = self._db.execute(
            "SELECT bot_id, name, created_at, revoked FROM bots WHERE token_hash=?",
            (hash_token(token),),
        ).fetchone()
        if row is None or row[3]:
            return None
        return BotRecord(row[0], row[1], row[2], bool(row[3]))

    def bot(self, bot_id: str) -> BotRecord:
        row = self._db.execute(
            "SELECT bot_id, name, created_at, revoked FROM bots WHERE bot_id=?", (bot_id,)
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no bot with id {bot_id!r}")
        return BotRecord(row[0], row[1], row[2], bool(row[3]))

    def bots(self) -> list[BotRecord]:
        rows = self._db.execute(
            "SELECT bot_id, name, created_at, revoked FROM bots ORDER BY created_at, name"
        ).fetchall()
        return [BotRecord(r[0], r[1], r[2], bool(r[3])) for r in rows]

    def rotate_token(self, bot_id: str) -> str:
        """Give a bot a new token (stored only as a hash) in place of its old one; returns it.

        Raises NotFoundError for an unknown bot, BotRevokedError for a revoked one (a revoked
        identity stays revoked: register a new one).
        """
        token = new_token()
        with self._transaction() as db:
            row = db.execute("SELECT revoked FROM bots WHERE bot_id=?", (bot_id,)).fetchone()
            if row is None:
                raise NotFoundError(f"no bot with id {bot_id!r}")
            if row[0]:
                raise BotRevokedError(f"bot {bot_id} is revoked; register a new identity")
            db.execute("UPDATE bots SET token_hash=? WHERE bot_id=?", (hash_token(token), bot_id))
        return token

    def revoke_bot(self, bot_id: str) -> None:
        with self._transaction() as db:
            if db.execute("UPDATE bots SET revoked=1 WHERE bot_id=?", (bot_id,)).rowcount == 0:
                raise NotFoundError(f"no bot with id {bot_id!r}")

    # --- sessions --------------------------------------------------------------------------
    def session_opened(self, session_id: str, bot_id: str, bot_version: str, peer: str) -> None:
        with self._transaction() as db:
            db.execute(
                "INSERT INTO sessions(session_id, bot_id, bot_version, peer, opened_at) "
                "VALUES(?,?,?,?,?)",
                (session_id, bot_id, bot_version, peer, now_ms()),
            )

    def session_closed(self, session_id: str, keep_per_bot: int = _KEEP_PER_BOT) -> None:
        """Record a session's end, and forget that bot's closed sessions but the newest
        ``keep_per_bot``: a bot that reconnects in a loop would otherwise fill the disk."""
        with self._transaction() as db:
            db.execute("UPDATE sessions SET closed_at=? WHERE session_id=?", (now_ms(), session_id))
            one_bot = "AND bot_id=(SELECT bot_id FROM sessions WHERE session_id=?)"
            db.execute(
                f"DELETE FROM sessions WHERE session_id IN "
                f"({_OLD_CLOSED_SESSIONS.format(bot=one_bot)})",
                (session_id, keep_per_bot),
            )

    def last_session_number(self) -> int:
        """The highest n of the session ids ``s<n>`` recorded so far (0 for none), so that a
        restarted referee numbers its sessions on from there instead of reusing ids."""
        row = self._db.execute(
            "SELECT max(CAST(substr(session_id, 2) AS INTEGER)) FROM sessions "
            "WHERE session_id LIKE 's%'"
        ).fetchone()
        return int(row[0] or 0)

    def close_open_sessions(self, keep_per_bot: int = _KEEP_PER_BOT) -> int:
        """At start-up: sessions left open by a referee that died are over (and, as at every
        close, only the newest ``keep_per_bot`` closed sessions of each bot are kept)."""
        with self._transaction() as db:
            closed = db.execute(
                "UPDATE sessions SET closed_at=? WHERE closed_at IS NULL", (now_ms(),)
            ).rowcount
            db.execute(
                f"DELETE FROM sessions WHERE session_id IN ({_OLD_CLOSED_SESSIONS.format(bot='')})",
                (keep_per_bot,),
            )
            return closed

    def integrity_ok(self) -> bool:
        return bool(self._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok")
