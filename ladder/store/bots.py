"""Bot identities in the ladder store: how each season bot is known to the referee (its id and
registered name) and the hash of the token last handed to its process, never the token.
The topic store ``bots`` of :class:`brandeln.ladder.store.database.LadderStore`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import sqlalchemy
from sqlalchemy import select, update

from brandeln.datastore.keys import can_name_a_row
from brandeln.ladder.errors import StorageError
from brandeln.ladder.store.base import TopicStore
from brandeln.ladder.store.schema import SEASON_BOTS, SEASONS
from brandeln.ladder.store.season_rows import season_id_of

__all__ = ["BotIdentity", "BotIdentityStore", "token_hash"]


@dataclass(frozen=True, slots=True)
class BotIdentity:
    """How a season bot is known to the referee.

    No token: a run asks the referee for a fresh one. ``token_hash`` (SHA-256, hex) is that of
    the token last handed to the bot's process, so that a later run can find a process that a
    killed run left behind (:func:`brandeln.ladder.bots.processes.find_orphans`).
    """

    bot: str
    kind: str
    bot_id: str | None
    referee_name: str | None
    token_hash: str | None


def token_hash(token: str) -> str:
    """What the ladder keeps of a bot token: its SHA-256, hex (a token is a random secret of
    256 bits, so a plain hash tells nothing about it).

    >>> token_hash("t")[:12]
    'e3b98a4da31a'
    """
    return hashlib.sha256(token.encode()).hexdigest()


class BotIdentityStore(TopicStore):
    """The bot identities' queries of the ladder database (``LadderStore.bots``)."""

    def bot_identities(self, season: str) -> dict[str, BotIdentity]:
        """The season's bots and how the referee knows them, by season bot name."""

        def read(db: sqlalchemy.Connection) -> dict[str, BotIdentity]:
            season_id = season_id_of(db, season)
            rows = db.execute(
                select(
                    SEASON_BOTS.c.bot,
                    SEASON_BOTS.c.kind,
                    SEASON_BOTS.c.bot_id,
                    SEASON_BOTS.c.referee_name,
                    SEASON_BOTS.c.token_hash,
                ).where(SEASON_BOTS.c.season_id == season_id)
            )
            return {row.bot: BotIdentity(*row) for row in rows}

        return self._read(f"reading the bots of season {season!r}", read)

    def seasons_of_bot(self, bot_id: str) -> list[tuple[str, str]]:
        """(season, the bot's name in it) for each season where the referee's ``bot_id``
        played, newest season first: one query, whatever the number of seasons."""
        if not can_name_a_row(bot_id):
            return []

        def read(db: sqlalchemy.Connection) -> list[tuple[str, str]]:
            rows = db.execute(
                select(SEASONS.c.name, SEASON_BOTS.c.bot)
                .join(SEASON_BOTS, SEASON_BOTS.c.season_id == SEASONS.c.season_id)
                .where(SEASON_BOTS.c.bot_id == bot_id)
                .order_by(
                    SEASONS.c.created_at.desc(), SEASONS.c.season_id.desc(), SEASON_BOTS.c.bot
                )
            )
            return [(row.name, row.bot) for row in rows]

        return self._read(f"finding the seasons of bot {bot_id!r}", read)

    def save_bot_identity(
        self, season: str, bot: str, *, bot_id: str, token_hash: str, referee_name: str
    ) -> None:
        """Remember a command bot's registration, so a resumed season reuses it, and the hash
        of the token its process is given (:func:`token_hash`; never the token itself)."""

        def store(db: sqlalchemy.Connection) -> None:
            season_id = season_id_of(db, season)
            changed = db.execute(
                update(SEASON_BOTS)
                .where(SEASON_BOTS.c.season_id == season_id, SEASON_BOTS.c.bot == bot)
                .values(bot_id=bot_id, token_hash=token_hash, referee_name=referee_name)
            ).rowcount
            if changed != 1:
                raise StorageError(f"season {season!r} has no bot {bot!r}")

        self._write(f"saving bot {bot!r} of season {season!r}", store)
