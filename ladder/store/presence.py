"""Bot versions' presence in the ladder store: where each version of an always-on ladder stood at
the referee when the ladder last looked (playing, idle, away) and the last thing that went wrong
with it (a forfeit, timeouts, an illegal move, a block it broke). The ladder writes it
(:mod:`brandeln.ladder.living.ladder`); its web page and ``brandeln ladder status`` read it
without asking the referee. The topic store ``presence`` of
:class:`brandeln.ladder.store.database.LadderStore`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import sqlalchemy
from sqlalchemy import select, update

from brandeln.datastore.upsert import dialect_insert
from brandeln.ladder.store.base import TopicStore, now_ms
from brandeln.ladder.store.schema import VERSION_PRESENCE, Presence
from brandeln.ladder.store.season_rows import season_id_of

__all__ = ["ERROR_CHARS", "PresenceStore", "VersionPresence"]

# A last error is a line for a page, not a log: what a bot sent that ends up in it is cut here.
ERROR_CHARS = 300


@dataclass(frozen=True, slots=True)
class VersionPresence:
    """A version's presence as the ladder last saw it (``seen_at``: ms since the epoch)."""

    bot: str
    presence: Presence
    sessions: int  # free seat sessions at the referee
    seen_at: int
    last_error: str = ""
    last_error_at: int | None = None


class PresenceStore(TopicStore):
    """The presence queries of the ladder database (``LadderStore.presence``)."""

    def see_versions(self, ladder: str, seen: Mapping[str, tuple[Presence, int]]) -> None:
        """Record each version's presence and free sessions now (``seen``: by version)."""
        if not seen:
            return
        now = now_ms()

        def write(db: sqlalchemy.Connection) -> None:
            season_id = season_id_of(db, ladder)
            rows = [
                {
                    "season_id": season_id,
                    "bot": bot,
                    "presence": presence.value,
                    "sessions": sessions,
                    "seen_at": now,
                }
                for bot, (presence, sessions) in sorted(seen.items())
            ]
            statement = dialect_insert(db, VERSION_PRESENCE)
            db.execute(
                statement.on_conflict_do_update(
                    index_elements=["season_id", "bot"],
                    set_={
                        "presence": statement.excluded.presence,
                        "sessions": statement.excluded.sessions,
                        "seen_at": statement.excluded.seen_at,
                    },
                ),
                rows,
            )

        self._write(f"recording who is connected to ladder {ladder!r}", write)

    def touch_presence(self, ladder: str) -> None:
        """Mark every version's presence as seen now: the ladder runs, and nothing changed
        (a long block: its players stay seen playing, not taken for a stopped ladder's)."""
        now = now_ms()

        def write(db: sqlalchemy.Connection) -> None:
            season_id = season_id_of(db, ladder)
            db.execute(
                update(VERSION_PRESENCE)
                .where(VERSION_PRESENCE.c.season_id == season_id)
                .values(seen_at=now)
            )

        self._write(f"refreshing who is connected to ladder {ladder!r}", write)

    def version_error(self, ladder: str, bot: str, error: str) -> None:
        """Keep ``error`` as the version's last error (cut to ERROR_CHARS)."""
        now = now_ms()
        text = error[:ERROR_CHARS]

        def write(db: sqlalchemy.Connection) -> None:
            season_id = season_id_of(db, ladder)
            statement = dialect_insert(db, VERSION_PRESENCE).values(
                season_id=season_id,
                bot=bot,
                presence=Presence.AWAY.value,
                sessions=0,
                seen_at=now,
                last_error=text,
                last_error_at=now,
            )
            db.execute(
                statement.on_conflict_do_update(
                    index_elements=["season_id", "bot"],
                    set_={"last_error": text, "last_error_at": now},
                )
            )

        self._write(f"recording an error of {bot} in ladder {ladder!r}", write)

    def presence(self, ladder: str) -> dict[str, VersionPresence]:
        """Every version's presence as last seen, by version (one never seen: absent)."""

        def read(db: sqlalchemy.Connection) -> dict[str, VersionPresence]:
            season_id = season_id_of(db, ladder)
            rows = db.execute(
                select(VERSION_PRESENCE).where(VERSION_PRESENCE.c.season_id == season_id)
            )
            return {
                row.bot: VersionPresence(
                    row.bot,
                    Presence(row.presence),
                    row.sessions,
                    row.seen_at,
                    row.last_error,
                    row.last_error_at,
                )
                for row in rows
            }

        return self._read(f"reading who is connected to ladder {ladder!r}", read)
