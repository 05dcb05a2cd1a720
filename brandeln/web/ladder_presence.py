"""Where an always-on ladder's versions stand, and whether the ladder serves, as its pages say
it (:mod:`brandeln.web.ladders`).

Where a version stands (playing, idle, away) is what the ladder wrote when it last looked: a
look older than :data:`PRESENCE_FRESH_MS` says the ladder is not serving, and the page says
"unknown" rather than a status nobody keeps up to date any more.

>>> from brandeln.ladder.store.schema import Presence
>>> from brandeln.ladder.store.database import VersionPresence
>>> seen = VersionPresence("a@1", Presence.IDLE, 1, seen_at=1_000)
>>> shown_presence(seen, now=2_000).label, shown_presence(seen, now=1_000_000).label
('idle', 'unknown (ladder stopped)')
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Final

from brandeln.ladder.store.database import VersionPresence

__all__ = ["PRESENCE_FRESH_MS", "ServiceState", "ShownPresence", "service_state", "shown_presence"]

# The ladder looks at its versions before each block it plans (every few seconds when idle):
# a look older than this says it is not serving.
PRESENCE_FRESH_MS: Final = 60_000


class ShownPresence(StrEnum):
    """Where a version stands, as the page says it."""

    PLAYING = "playing"
    IDLE = "idle"
    AWAY = "away"
    UNSEEN = "unseen"  # the ladder has not looked at it yet
    UNKNOWN = "unknown"  # the ladder's last look is too old: it is not serving

    @property
    def label(self) -> str:
        if self is ShownPresence.UNKNOWN:
            return "unknown (ladder stopped)"
        if self is ShownPresence.UNSEEN:
            return "not seen yet"
        return self.value


def shown_presence(seen: VersionPresence | None, now: int) -> ShownPresence:
    """``seen`` as the page shows it at ``now`` (ms since the epoch)."""
    if seen is None:
        return ShownPresence.UNSEEN
    if now - seen.seen_at > PRESENCE_FRESH_MS:
        return ShownPresence.UNKNOWN
    return ShownPresence(seen.presence.value)


class ServiceState(StrEnum):
    """Whether the ladder serves, judged by its newest look at its versions."""

    SERVING = "serving"
    STOPPED = "stopped"
    UNSEEN = "unseen"  # it never looked at a version

    @property
    def label(self) -> str:
        if self is ServiceState.STOPPED:
            return "not serving"
        if self is ServiceState.UNSEEN:
            return "not seen serving yet"
        return "serving"


def service_state(presence: Mapping[str, VersionPresence], now: int) -> tuple[ServiceState, int]:
    """The ladder's state and its newest look (ms, 0 for none)."""
    newest = max((seen.seen_at for seen in presence.values()), default=0)
    if not newest:
        return ServiceState.UNSEEN, 0
    fresh = now - newest <= PRESENCE_FRESH_MS
    return ServiceState.SERVING if fresh else ServiceState.STOPPED, newest
