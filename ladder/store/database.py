"""The ladder database on SQLAlchemy Core: an SQLite file (the default, ``DATA/ladder.db``) or
the ``ladder`` schema of a PostgreSQL database, the same tables
(:mod:`brandeln.ladder.store.schema`) and the same behaviour on both. The schema is migrated with
Alembic on open (``ladder/migrations``; files of older versions, ``user_version`` 1 and 2, are
adopted), and a database of a newer brandeln is refused. An SQLite file and its WAL are 0600.

Every write is one short transaction, retried as a whole when the server was briefly away
(:mod:`brandeln.datastore.retry`). Only finished blocks are stored, each in **one transaction**
together with the rating updates it unlocks, so an interrupted season loses at most the blocks that
were still being played, and running it again replays those from the start: nothing is lost, nothing
is counted twice. Recording a block that is already stored with the same matches is a no-op (a
retried transaction whose commit did land), with other matches an error.

Blocks are claimed before they are played (:meth:`LadderStore.claim_block`, in a transaction:
``FOR UPDATE SKIP LOCKED`` on PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite), so several runners of
one season share its blocks. Ratings are applied in block order whoever records: the recording
transaction locks the season's row and the rule itself lives in
:mod:`brandeln.ladder.ratings.order`.

This module is the store's front: :class:`LadderStore` composes one part per topic, each in a
module of its own on the base that opens the database and runs its transactions
(:mod:`brandeln.ladder.store.base`): seasons (:mod:`brandeln.ladder.store.seasons`, the season rows
every part starts from in :mod:`brandeln.ladder.store.season_rows`), bot identities
(:mod:`brandeln.ladder.store.bots`), block claims (:mod:`brandeln.ladder.store.claims`), finished
blocks and the ratings they unlock (:mod:`brandeln.ladder.store.blocks`), the read models
(:mod:`brandeln.ladder.store.reads`), and the always-on ladder's versions, planned blocks,
challenges and presence (:mod:`brandeln.ladder.store.living`, :mod:`brandeln.ladder.store.planned`,
:mod:`brandeln.ladder.store.challenges`, :mod:`brandeln.ladder.store.presence`), a season's final
rerun (:mod:`brandeln.ladder.store.rerun`), and each match's role figures once judged
(:mod:`brandeln.ladder.store.roles`).

>>> from pathlib import Path
>>> from brandeln.ladder.season.config import RatingParams
>>> with LadderStore.open(Path(":memory:")) as store:
...     store.season_names()
[]
"""

from __future__ import annotations

from brandeln.ladder.store.audit import SeasonAuditMixin

# SIDE, database_url and RateUnlocked are not exported, but stay reachable here as before.
from brandeln.ladder.store.base import SCHEMA_VERSION, SIDE, LadderStoreBase, database_url  # noqa: F401
from brandeln.ladder.store.blocks import BlockRecordsMixin, RatedBlock, RateUnlocked  # noqa: F401
from brandeln.ladder.store.bots import BotIdentity, LadderBotIdentitiesMixin, token_hash
from brandeln.ladder.store.challenges import Challenge, ChallengeLimitError, ChallengesMixin
from brandeln.ladder.store.claims import BlockClaimsMixin
from brandeln.ladder.store.commitments import SeasonCommitmentsMixin
from brandeln.ladder.store.living import LadderVersion, LivingLadderMixin, VersionError
from brandeln.ladder.store.periods import SeedPeriodsMixin
from brandeln.ladder.store.planned import PlannedBlock, PlannedBlocksMixin
from brandeln.ladder.store.presence import PresenceMixin, VersionPresence
from brandeln.ladder.store.reads import BotTotals, RatingRow, ReadModelsMixin, RecordedMatch
from brandeln.ladder.store.rerun import RerunMixin, RerunRecord
from brandeln.ladder.store.roles import KeptFigures, RoleFiguresMixin
from brandeln.ladder.store.season_rows import SeasonInfo, SeasonStatus
from brandeln.ladder.store.seasons import SeasonsMixin, season_settings

__all__ = [
    "SCHEMA_VERSION",
    "BotIdentity",
    "BotTotals",
    "Challenge",
    "ChallengeLimitError",
    "KeptFigures",
    "LadderStore",
    "LadderVersion",
    "PlannedBlock",
    "RatedBlock",
    "RatingRow",
    "RecordedMatch",
    "RerunRecord",
    "SeasonInfo",
    "SeasonStatus",
    "VersionError",
    "VersionPresence",
    "season_settings",
    "token_hash",
]


class LadderStore(
    SeasonsMixin,
    LadderBotIdentitiesMixin,
    BlockClaimsMixin,
    BlockRecordsMixin,
    ReadModelsMixin,
    LivingLadderMixin,
    PlannedBlocksMixin,
    ChallengesMixin,
    PresenceMixin,
    SeasonCommitmentsMixin,  # committed seeds, and an always-on ladder's periods of them
    SeedPeriodsMixin,
    SeasonAuditMixin,  # what `season verify` reads
    RerunMixin,
    RoleFiguresMixin,
    LadderStoreBase,
):
    """The ladder database. Use :meth:`open`; close it (or use it as a context manager)."""
