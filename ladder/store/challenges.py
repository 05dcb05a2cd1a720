"""Challenges in the ladder store: the blocks asked for (``brandeln challenge``, the web's form),
queued ahead of an always-on ladder's matchmaking (:mod:`brandeln.ladder.living.ladder`), within
a limit per bot per hour so that nobody fills the ladder with their own matches. The topic store
``challenges`` of :class:`brandeln.ladder.store.database.LadderStore`.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass

import sqlalchemy
from sqlalchemy import func, select, update

from brandeln.engine.plurals import plural
from brandeln.ladder.errors import LadderError
from brandeln.ladder.store.base import TopicStore, now_ms
from brandeln.ladder.store.schema import CHALLENGES, SEASON_BOTS, ChallengeState, VersionStatus
from brandeln.ladder.store.season_rows import lock_season, season_id_of

__all__ = ["CHALLENGE_WINDOW_MS", "Challenge", "ChallengeLimitError", "ChallengeStore"]

CHALLENGE_WINDOW_MS = 3_600_000  # the limit on challenges counts the last hour's


class ChallengeLimitError(LadderError):
    """A challenge over a bot's limit per hour, or naming a bot that is not active."""


@dataclass(frozen=True, slots=True)
class Challenge:
    """A block asked for, and where it stands."""

    challenge_id: int
    bots: tuple[str, ...]
    rated: bool
    deals: int  # per match
    requested_by: str
    state: ChallengeState
    block_index: int | None
    created_at: int
    detail: str


class ChallengeStore(TopicStore):
    """The challenges' queries of the ladder database (``LadderStore.challenges``)."""

    # -- challenges -------------------------------------------------------------------------

    def queue_challenge(
        self,
        ladder: str,
        bots: tuple[str, ...],
        *,
        deals: int,
        rated: bool,
        requested_by: str,
        per_hour: int,
    ) -> int:
        """Queue a block of ``bots`` (active versions of the ladder) ahead of matchmaking; its
        id. ChallengeLimitError naming the bot when one is not active, or has been challenged
        ``per_hour`` times in the last hour already."""

        def queue(db: sqlalchemy.Connection) -> int:
            season_id, _ = lock_season(db, ladder)
            active = set(
                db.execute(
                    select(SEASON_BOTS.c.bot).where(
                        SEASON_BOTS.c.season_id == season_id,
                        SEASON_BOTS.c.status == VersionStatus.ACTIVE.value,
                    )
                ).scalars()
            )
            for bot in bots:
                if bot not in active:
                    known = ", ".join(sorted(active)) or "none yet"
                    raise ChallengeLimitError(
                        f"{bot!r} is no active version of ladder {ladder!r} (active: {known})"
                    )
            since = now_ms() - CHALLENGE_WINDOW_MS
            recent: Counter[str] = Counter()
            for row in db.execute(
                select(CHALLENGES.c.bots_json).where(
                    CHALLENGES.c.season_id == season_id, CHALLENGES.c.created_at >= since
                )
            ):
                recent.update(json.loads(row.bots_json))
            for bot in bots:
                if recent[bot] >= per_hour:
                    raise ChallengeLimitError(
                        f"{bot} was challenged {plural(recent[bot], 'time')} in the last hour, "
                        "the most "
                        f"a bot may be (challenges_per_hour {per_hour}); try again later"
                    )
            return int(
                db.execute(
                    CHALLENGES.insert()
                    .values(
                        season_id=season_id,
                        bots_json=json.dumps(list(bots)),
                        rated=int(rated),
                        deals=deals,
                        requested_by=requested_by,
                        created_at=now_ms(),
                    )
                    .returning(CHALLENGES.c.challenge_id)
                ).scalar_one()
            )

        return self._write(f"queueing a challenge in ladder {ladder!r}", queue)

    def challenges(self, ladder: str, *states: ChallengeState) -> list[Challenge]:
        """The ladder's challenges in the given states (all without), oldest first."""

        def read(db: sqlalchemy.Connection) -> list[Challenge]:
            season_id = season_id_of(db, ladder)
            query = select(CHALLENGES).where(CHALLENGES.c.season_id == season_id)
            if states:
                query = query.where(CHALLENGES.c.state.in_([state.value for state in states]))
            rows = db.execute(query.order_by(CHALLENGES.c.challenge_id))
            return [
                Challenge(
                    row.challenge_id,
                    tuple(json.loads(row.bots_json)),
                    bool(row.rated),
                    row.deals,
                    row.requested_by,
                    ChallengeState(row.state),
                    row.block_index,
                    row.created_at,
                    row.detail,
                )
                for row in rows
            ]

        return self._read(f"reading the challenges of ladder {ladder!r}", read)

    def set_challenge(self, challenge_id: int, state: ChallengeState, detail: str = "") -> None:
        """Record where a challenge stands (played; refused, and why)."""

        def store(db: sqlalchemy.Connection) -> None:
            db.execute(
                update(CHALLENGES)
                .where(CHALLENGES.c.challenge_id == challenge_id)
                .values(state=state.value, detail=detail)
            )

        self._write(f"saving challenge {challenge_id}", store)

    def challenges_queued(self, ladder: str) -> int:
        """How many challenges wait."""

        def read(db: sqlalchemy.Connection) -> int:
            season_id = season_id_of(db, ladder)
            return int(
                db.execute(
                    select(func.count()).where(
                        CHALLENGES.c.season_id == season_id,
                        CHALLENGES.c.state == ChallengeState.QUEUED.value,
                    )
                ).scalar_one()
            )

        return self._read(f"counting the queue of ladder {ladder!r}", read)
