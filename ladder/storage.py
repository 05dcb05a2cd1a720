"""The ladder database on SQLAlchemy Core: an SQLite file (the default, ``DATA/ladder.db``) or
the ``ladder`` schema of a PostgreSQL database, the same tables (:mod:`ladder.schema`) and the
same behaviour on both. The schema is migrated with Alembic on open (``ladder/migrations``;
files of older versions, ``user_version`` 1 and 2, are adopted), and a database of a newer
brandeln is refused. An SQLite file and its WAL are 0600.

Every write is one short transaction, retried as a whole when the server was briefly away
(:mod:`datastore.retry`). Only finished blocks are stored, each in **one transaction** together
with the rating updates it unlocks, so an interrupted season loses at most the blocks that were
still being played, and running it again replays those from the start: nothing is lost, nothing
is counted twice. Recording a block that is already stored with the same matches is a no-op (a
retried transaction whose commit did land), with other matches an error.

Blocks are claimed before they are played (:meth:`LadderStore.claim_block`, in a transaction:
``FOR UPDATE SKIP LOCKED`` on PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite), so several runners of
one season share its blocks. Ratings are applied in block order whoever records: the recording
transaction locks the season's row and the rule itself lives in :mod:`ladder.rating_order`.

This module is the store's front: :class:`LadderStore` composes one part per topic, each in a
module of its own on the base that opens the database and runs its transactions
(:mod:`ladder.storage_base`): seasons (:mod:`ladder.storage_seasons`, the season rows every
part starts from in :mod:`ladder.season_rows`), bot identities (:mod:`ladder.storage_bots`),
block claims (:mod:`ladder.storage_claims`), finished blocks and the ratings they unlock
(:mod:`ladder.storage_blocks`), the read models (:mod:`ladder.storage_reads`), and the
always-on ladder's versions, planned blocks, challenges and presence
(:mod:`ladder.storage_living`, :mod:`ladder.storage_planned`, :mod:`ladder.storage_challenges`,
:mod:`ladder.storage_presence`), a season's final rerun (:mod:`ladder.storage_rerun`), and
each match's role figures once judged (:mod:`ladder.storage_roles`).

>>> from pathlib import Path
>>> from ladder.config import RatingParams
>>> with LadderStore.open(Path(":memory:")) as store:
...     store.season_names()
[]
"""

from __future__ import annotations

from ladder.season_rows import SeasonInfo, SeasonStatus
from ladder.storage_audit import SeasonAuditMixin

# SIDE, database_url and RateUnlocked are not exported, but stay reachable here as before.
from ladder.storage_base import SCHEMA_VERSION, SIDE, LadderStoreBase, database_url  # noqa: F401
from ladder.storage_blocks import BlockRecordsMixin, RatedBlock, RateUnlocked  # noqa: F401
from ladder.storage_bots import BotIdentitiesMixin, BotIdentity, token_hash
from ladder.storage_challenges import Challenge, ChallengeLimitError, ChallengesMixin
from ladder.storage_claims import BlockClaimsMixin
from ladder.storage_commitments import SeasonCommitmentsMixin
from ladder.storage_living import LadderVersion, LivingLadderMixin, VersionError
from ladder.storage_periods import SeedPeriodsMixin
from ladder.storage_planned import PlannedBlock, PlannedBlocksMixin
from ladder.storage_presence import PresenceMixin, VersionPresence
from ladder.storage_reads import BotTotals, RatingRow, ReadModelsMixin, RecordedMatch
from ladder.storage_rerun import RerunMixin, RerunRecord
from ladder.storage_roles import KeptFigures, RoleFiguresMixin
from ladder.storage_seasons import SeasonsMixin, season_settings

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
    BotIdentitiesMixin,
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
