"""The ladder's tables, as SQLAlchemy Core metadata: the schema the newest migration makes
(``ladder/store/migrations/versions/``), the same Table objects on SQLite and PostgreSQL.

No table names a schema: on PostgreSQL the engine puts them in the ``ladder`` schema
(:func:`brandeln.datastore.engine.open_engine`), beside the referee's tables in ``referee``.
``METADATA`` is what the copy tool (``brandeln db copy``) walks, in dependency order.

Tables: ``seasons``; ``season_bots`` (a season's bots and their referee identities: no token,
only the hash of the one last handed to a bot's process); ``blocks``, ``matches`` (the
referee's match ids, per block and rotation) and ``results`` (per bot per block); ``ratings``
and ``rating_history``; ``bot_totals`` (each bot's sums over its rated blocks, so the
leaderboard reads one row per bot however long the season); ``block_claims`` (which runner
plays which block now); for the always-on ladder, ``planned_blocks``, ``challenges`` and
``seed_periods`` (each period's committed seed); ``role_figures`` (each match's figures by
role, judged from its log once).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    Column,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    Table,
    Text,
)

__all__ = [
    "BLOCKS",
    "BLOCK_CLAIMS",
    "BOT_TOTALS",
    "CHALLENGES",
    "MATCHES",
    "METADATA",
    "PLANNED_BLOCKS",
    "RATINGS",
    "RATING_HISTORY",
    "RESULTS",
    "ROLE_FIGURES",
    "SEASONS",
    "SEASON_BOTS",
    "SEED_PERIODS",
    "VERSION_PRESENCE",
    "ChallengeState",
    "ClaimState",
    "Presence",
    "VersionStatus",
]


class ClaimState(StrEnum):
    """A block's claim: free to take, being played by a runner, or recorded."""

    OPEN = "open"
    CLAIMED = "claimed"
    DONE = "done"


METADATA: Final = MetaData()

SEASONS: Final = Table(
    "seasons",
    METADATA,
    Column("season_id", Integer, primary_key=True, autoincrement=True),
    Column("name", Text, nullable=False, unique=True),
    Column("settings_json", Text, nullable=False),  # what must not change between runs
    Column("ruleset", Text, nullable=False),
    Column("players", Integer, nullable=False),
    Column("blocks_planned", Integer, nullable=False),
    # Ratings include every block below this index.
    Column("next_to_rate", Integer, nullable=False, server_default="0"),
    Column("created_at", BigInteger, nullable=False),  # ms since the epoch
    Column("updated_at", BigInteger, nullable=False),
    Column("status", Text, nullable=False, server_default="running"),  # a SeasonStatus
    Column("status_detail", Text, nullable=False, server_default=""),  # why it failed
    # Kept with each recorded block: no count over a long season's blocks to show it.
    Column("blocks_recorded", Integer, nullable=False, server_default="0"),
    # The committed seed (brandeln.ladder.season.commitment): the commitment, the schedule committed
    # with the seed, the seed (64 hex digits: read out only once revealed, when the season finished,
    # unless seed_public), when it was committed and revealed. NULL before a run commits it.
    Column("commitment", Text),
    Column("commitment_schedule", Text),
    Column("secret_seed", Text),
    Column("seed_public", Integer, nullable=False, server_default="0"),
    Column("committed_at", BigInteger),
    Column("seed_revealed_at", BigInteger),
)

SEASON_BOTS: Final = Table(
    "season_bots",
    METADATA,
    Column("season_id", Integer, ForeignKey("seasons.season_id"), primary_key=True),
    Column("bot", Text, primary_key=True),  # the name in the season file
    Column("kind", Text, nullable=False),
    Column("bot_id", Text),  # the referee's id; NULL until a command bot is registered
    Column("referee_name", Text),  # the name it was registered under at the referee
    Column("token_hash", Text),  # SHA-256 of the token last handed to its process
    # A bot version of an always-on ladder (NULL for a season file's bots): the bot it is a
    # version of, the version, whether matchmaking picks it (a VersionStatus), when it joined.
    Column("family", Text),
    Column("version", Text),
    Column("status", Text),
    Column("created_at", BigInteger),
    # The rating a version started from (a family's next version starts from the one before,
    # widened): its ratings recomputed from the blocks alone start here (`season verify`).
    Column("start_mu", Float),
    Column("start_sigma", Float),
    # A version the ladder launches itself: its command and tables as JSON
    # (brandeln.ladder.bots.version_commands); NULL for one that connects by itself.
    Column("command_json", Text),
    CheckConstraint("kind IN ('command', 'external')", name="season_bots_kind"),
)

BLOCKS: Final = Table(
    "blocks",
    METADATA,
    Column("season_id", Integer, ForeignKey("seasons.season_id"), primary_key=True),
    Column("block_index", Integer, primary_key=True),
    Column("seed", Text, nullable=False),  # 64-bit unsigned: text (SQL integers are signed)
    Column("bots_json", Text, nullable=False),  # seating of rotation 0
    Column("finished_at", BigInteger, nullable=False),
)

MATCHES: Final = Table(
    "matches",
    METADATA,
    Column("season_id", Integer, primary_key=True),
    Column("block_index", Integer, primary_key=True),
    Column("rotation", Integer, primary_key=True),
    Column("match_id", Text, nullable=False),
    Column("suit_permutation", Text, nullable=False),
    Column("bots_json", Text, nullable=False),  # season bot names by seat
    Column("balances_json", Text, nullable=False),
    Column("forfeited_json", Text, nullable=False),
    Column("deals_played", Integer, nullable=False),
    ForeignKeyConstraint(["season_id", "block_index"], ["blocks.season_id", "blocks.block_index"]),
    Index("matches_by_match_id", "match_id"),
)

RESULTS: Final = Table(
    "results",
    METADATA,
    Column("season_id", Integer, primary_key=True),
    Column("block_index", Integer, primary_key=True),
    Column("bot", Text, primary_key=True),
    Column("rank", Integer, nullable=False),
    Column("chips", Integer, nullable=False),
    Column("deals", Integer, nullable=False),
    Column("forfeited", Integer, nullable=False),
    Column("timeouts", Integer, nullable=False),
    Column("illegal", Integer, nullable=False),
    Column("strikes", Integer, nullable=False),
    Column("contracts_bid", Integer, nullable=False),
    Column("contracts_made", Integer, nullable=False),
    # Decision latency over the block's matches (MatchSummary.latency,
    # brandeln.ladder.season.duplicate's combine_latency); lat_decisions 0: not reported (blocks
    # recorded before revision 0004).
    Column("lat_decisions", Integer, nullable=False, server_default="0"),
    Column("lat_p50_ms", Integer, nullable=False, server_default="0"),
    Column("lat_p95_ms", Integer, nullable=False, server_default="0"),
    Column("lat_max_ms", Integer, nullable=False, server_default="0"),
    ForeignKeyConstraint(["season_id", "block_index"], ["blocks.season_id", "blocks.block_index"]),
)

RATINGS: Final = Table(
    "ratings",
    METADATA,
    Column("season_id", Integer, ForeignKey("seasons.season_id"), primary_key=True),
    Column("bot", Text, primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("blocks", Integer, nullable=False),  # rated blocks played
)

RATING_HISTORY: Final = Table(
    "rating_history",
    METADATA,
    Column("season_id", Integer, primary_key=True),
    Column("block_index", Integer, primary_key=True),
    Column("bot", Text, primary_key=True),
    Column("mu", Float, nullable=False),  # after the block
    Column("sigma", Float, nullable=False),
)

# A bot's sums over its rated blocks (the leaderboard's columns), updated with the ratings.
# cpd_*: the per-block samples chips/deals (blocks with deals only), for the mean and its
# interval without reading every block (brandeln.ladder.ratings.stats.mean_ci95_from_sums).
BOT_TOTALS: Final = Table(
    "bot_totals",
    METADATA,
    Column("season_id", Integer, ForeignKey("seasons.season_id"), primary_key=True),
    Column("bot", Text, primary_key=True),
    Column("deals", Integer, nullable=False, server_default="0"),
    Column("chips", Integer, nullable=False, server_default="0"),
    Column("contracts_bid", Integer, nullable=False, server_default="0"),
    Column("contracts_made", Integer, nullable=False, server_default="0"),
    Column("timeouts", Integer, nullable=False, server_default="0"),
    Column("illegal", Integer, nullable=False, server_default="0"),
    Column("forfeits", Integer, nullable=False, server_default="0"),
    Column("cpd_n", Integer, nullable=False, server_default="0"),
    Column("cpd_sum", Float, nullable=False, server_default="0"),
    Column("cpd_sum_sq", Float, nullable=False, server_default="0"),
    # Strikes, and the decision latency as sums weighted by decisions (lat_p50_sum = the sum of
    # each block's p50 times its decisions), so the season's figure needs no read of each block.
    Column("strikes", Integer, nullable=False, server_default="0"),
    Column("lat_decisions", Integer, nullable=False, server_default="0"),
    Column("lat_p50_sum", Integer, nullable=False, server_default="0"),
    Column("lat_p95_sum", Integer, nullable=False, server_default="0"),
    Column("lat_max_ms", Integer, nullable=False, server_default="0"),
)

# One row per planned block: claimed in a transaction by the runner that plays it
# (FOR UPDATE SKIP LOCKED on PostgreSQL, BEGIN IMMEDIATE on SQLite).
BLOCK_CLAIMS: Final = Table(
    "block_claims",
    METADATA,
    Column("season_id", Integer, ForeignKey("seasons.season_id"), primary_key=True),
    Column("block_index", Integer, primary_key=True),
    Column("state", Text, nullable=False, server_default=ClaimState.OPEN.value),
    Column("claimed_by", Text),  # the runner: "host/pid/nonce"
    Column("claimed_at", BigInteger),
    Column("heartbeat_at", BigInteger),  # ms; a claim unrefreshed for long is taken over
    Index("block_claims_by_state", "season_id", "state", "block_index"),
)


class VersionStatus(StrEnum):
    """A bot version in an always-on ladder: picked by matchmaking, or kept for its history."""

    ACTIVE = "active"
    RETIRED = "retired"


class Presence(StrEnum):
    """Where a bot version stands at the referee, as an always-on ladder last saw it."""

    PLAYING = "playing"  # seated in a block the ladder is playing
    IDLE = "idle"  # connected, with a free session, waiting for a block
    AWAY = "away"  # no free session at the referee: skipped, never forfeited


class ChallengeState(StrEnum):
    """A challenge's way through the queue."""

    QUEUED = "queued"
    PLANNED = "planned"  # its block is planned (being played, or to be replayed)
    PLAYED = "played"
    REFUSED = "refused"  # a bot in it is no longer active


# Each block an always-on ladder planned (brandeln.ladder.living.ladder), before it is played: its
# players (the seating of rotation 0) and seed, so a ladder restarted after a kill plays the same
# block again; and whether it is rated (a challenge may not be).
PLANNED_BLOCKS: Final = Table(
    "planned_blocks",
    METADATA,
    Column("season_id", Integer, ForeignKey("seasons.season_id"), primary_key=True),
    Column("block_index", Integer, primary_key=True),
    Column("bots_json", Text, nullable=False),
    Column("seed", Text, nullable=False),  # 64-bit unsigned: text (SQL integers are signed)
    Column("rated", Integer, nullable=False, server_default="1"),
    Column("deals", Integer, nullable=False),  # per match (a challenge may ask for its own)
    Column("challenge_id", Integer),
    Column("planned_at", BigInteger, nullable=False),
)

# An always-on ladder's seed periods (brandeln.ladder.store.periods): each period's blocks deal from
# a seed of its own, committed before its first block and read out once its last is recorded.
SEED_PERIODS: Final = Table(
    "seed_periods",
    METADATA,
    Column("season_id", Integer, ForeignKey("seasons.season_id"), primary_key=True),
    Column("period", Integer, primary_key=True),  # 0, 1, ... in block order
    Column("first_block", Integer, nullable=False),
    Column("blocks", Integer, nullable=False),
    Column("secret_seed", Text, nullable=False),
    Column("commitment", Text, nullable=False),
    Column("commitment_schedule", Text, nullable=False),
    Column("committed_at", BigInteger, nullable=False),
)

# The blocks asked for (`brandeln challenge`, the web's form), played ahead of matchmaking.
CHALLENGES: Final = Table(
    "challenges",
    METADATA,
    Column("challenge_id", Integer, primary_key=True, autoincrement=True),
    Column("season_id", Integer, ForeignKey("seasons.season_id"), nullable=False),
    Column("bots_json", Text, nullable=False),
    Column("rated", Integer, nullable=False, server_default="1"),
    Column("deals", Integer, nullable=False),  # per match
    Column("requested_by", Text, nullable=False, server_default=""),
    Column("state", Text, nullable=False, server_default=ChallengeState.QUEUED.value),
    Column("block_index", Integer),
    Column("created_at", BigInteger, nullable=False),
    Column("detail", Text, nullable=False, server_default=""),
    Index("challenges_by_state", "season_id", "state", "challenge_id"),
)

# Each bot version's presence as an always-on ladder last saw it (brandeln.ladder.living.ladder
# writes it at every look at the referee's sessions), and the last thing that went wrong with it:
# what its web page and `ladder status` show without asking the referee.
VERSION_PRESENCE: Final = Table(
    "version_presence",
    METADATA,
    Column("season_id", Integer, ForeignKey("seasons.season_id"), primary_key=True),
    Column("bot", Text, primary_key=True),
    Column("presence", Text, nullable=False),
    Column("sessions", Integer, nullable=False, server_default="0"),
    Column("seen_at", BigInteger, nullable=False),  # ms: when the ladder last looked
    Column("last_error", Text, nullable=False, server_default=""),
    Column("last_error_at", BigInteger),
)

# Each recorded match's role figures (brandeln.services.roles.figures: bidding, soloist play and
# defence per seat, judged double dummy from its log), kept once judged: a cache of what the logs
# give, rejudged when ``version`` is not the code's.
ROLE_FIGURES: Final = Table(
    "role_figures",
    METADATA,
    Column("season_id", Integer, ForeignKey("seasons.season_id"), primary_key=True),
    Column("match_id", Text, primary_key=True),
    Column("version", Integer, nullable=False),
    Column("figures_json", Text, nullable=False),
    Column("judged_at", BigInteger, nullable=False),
)
