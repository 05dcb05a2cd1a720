"""Where the always-on ladder (:mod:`ladder.living`) plays its blocks and how it sees who is
there: two seams, so that the same loop runs on one referee (the defaults here) or on a Ray
cluster (:mod:`cluster.ladder_blocks`, which the ladder never imports).

- A :class:`LadderPlayer` plays one planned block among the given versions and returns its
  matches' outcomes (:class:`RefereePlayer`: through the referee's Admin service).
- A :class:`PresenceSource` tells each active version's presence and free seat sessions
  (:class:`RefereePresence`: the referee's sessions, :func:`ladder.seating.presence`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ladder.admin_client import AdminClient
from ladder.duplicate import BlockPlan, MatchOutcome
from ladder.runner import RefereeBlocks
from ladder.schema import Presence
from ladder.season_types import SeasonConfig
from ladder.seating import presence
from ladder.storage import LadderVersion

__all__ = ["LadderPlayer", "PresenceSource", "RefereePlayer", "RefereePresence", "Seen"]

# Each active version's presence and free seat sessions, by version name.
Seen = dict[str, tuple[Presence, int]]


class LadderPlayer(Protocol):
    async def play_block(
        self, season: SeasonConfig, versions: Sequence[LadderVersion], plan: BlockPlan
    ) -> list[MatchOutcome]:
        """Play every match of ``plan`` (``season``: the ladder's settings, this block's deals;
        ``versions``: the ladder's, the block's bots among them); raise the ladder's error
        when the block cannot be finished (it is given back)."""
        ...


class PresenceSource(Protocol):
    async def presence(
        self, versions: Sequence[LadderVersion], playing: set[str], need: int
    ) -> Seen:
        """Each active version's presence (``playing``: seated in a block in flight; idle:
        ``need`` free sessions or more) and its free sessions."""
        ...


@dataclass(frozen=True, slots=True)
class RefereePlayer:
    """Blocks played at one referee, among versions connected there by themselves or
    launched beside the ladder (:mod:`ladder.version_launcher`)."""

    admin: AdminClient

    async def play_block(
        self, season: SeasonConfig, versions: Sequence[LadderVersion], plan: BlockPlan
    ) -> list[MatchOutcome]:
        bot_ids = {version.name: version.bot_id for version in versions}
        return await RefereeBlocks(self.admin, season, bot_ids, ()).play_block(plan, lambda: None)


@dataclass(frozen=True, slots=True)
class RefereePresence:
    """Presence as the referee's seat sessions tell it."""

    admin: AdminClient

    async def presence(
        self, versions: Sequence[LadderVersion], playing: set[str], need: int
    ) -> Seen:
        return presence(versions, await self.admin.sessions(), playing, need)
