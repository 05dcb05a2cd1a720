"""Where one ``brandeln season verify`` stands (:mod:`brandeln.services.verify.season`): what it
read from the store, what it has counted, which stages passed and what it could not check yet.

The checks themselves are functions over an :class:`Audit`, one module per topic
(:mod:`brandeln.services.verify.commitment`, :mod:`brandeln.services.verify.blocks`,
:mod:`brandeln.services.verify.ratings`); they share this state rather than a class hierarchy, so
each reads on its own.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

from brandeln.ladder.living.periods import SeedPeriod
from brandeln.ladder.store.audit import AuditRows
from brandeln.ladder.store.database import LadderStore, PlannedBlock
from brandeln.services.verify.matches import FetchedLog, MismatchError, Stage

__all__ = [
    "LADDER_KIND",
    "Audit",
    "LogFetcher",
    "StageCallback",
    "names_of",
    "numbers_of",
    "settings_of",
]

LogFetcher = Callable[[str], FetchedLog]  # a match id -> its log, or LogUnavailableError
StageCallback = Callable[[Stage, str], None]

LADDER_KIND: Final = "ladder"


class Audit:
    """One verification: what it read, what it counted, where it stands."""

    def __init__(
        self, store: LadderStore, season: str, fetch_log: LogFetcher, on_stage: StageCallback
    ) -> None:
        self.store = store
        self.season = season
        self.fetch_log = fetch_log
        self.on_stage = on_stage
        self.rows: AuditRows = store.audit.audit_rows(season)
        self.info = store.seasons.season(season)
        self.settings: dict[str, Any] = {}
        self.ladder = False
        self.stages: list[tuple[Stage, str]] = []
        self.unchecked: list[str] = []
        self.blocks = self.matches = self.deals = 0
        self.secret_blocks = 0  # blocks of a period whose seed is still secret
        # The number each block's deals follow from: by block for a ladder's periods, else
        # one for the whole season; None where the seed is not revealed yet.
        self.season_seed: int | None = None
        self.periods: list[SeedPeriod] = []
        self.planned: dict[int, PlannedBlock] = {}

    def passed(self, stage: Stage, text: str) -> None:
        self.stages.append((stage, text))
        self.on_stage(stage, text)


def settings_of(text: str) -> dict[str, Any]:
    try:
        settings = json.loads(text)
    except ValueError:
        settings = None
    if not isinstance(settings, dict):
        raise MismatchError(
            Stage.COMMITMENT, "settings", "the stored settings are not a JSON object"
        )
    return settings


def names_of(text: str, field: str) -> tuple[str, ...]:
    try:
        names = json.loads(text)
    except ValueError:
        names = None
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise MismatchError(Stage.DEALS, field, f"{field}: stored {text!r} is not a list of names")
    return tuple(names)


def numbers_of(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return text
