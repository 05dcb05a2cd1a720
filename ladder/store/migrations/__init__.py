"""The ladder database's Alembic migrations (``versions/``), run on open by
:func:`brandeln.datastore.migrations.upgrade` from
:meth:`brandeln.ladder.store.database.LadderStore.open`.

Revision 0001 is the schema that ``PRAGMA user_version`` 1 files hold, 0002 that of version 2
(so today's files are stamped and upgraded from there), 0003 added block claims and per-bot
totals. A revision's ops are written for both SQLite and PostgreSQL.
"""

from pathlib import Path
from typing import Final

import sqlalchemy

SCRIPT_LOCATION: Final = Path(__file__).resolve().parent
# The ladder files from before Alembic: their PRAGMA user_version -> the revision they match.
LEGACY_REVISIONS: Final = {1: "0001", 2: "0002"}

# What a legacy file must hold to be adopted: each version's tables and columns.
_V1_TABLES: Final = {
    "seasons": (
        "season_id",
        "name",
        "settings_json",
        "ruleset",
        "players",
        "blocks_planned",
        "next_to_rate",
        "created_at",
        "updated_at",
    ),
    "season_bots": ("season_id", "bot", "kind", "bot_id", "token", "referee_name"),
    "blocks": ("season_id", "block_index", "seed", "bots_json", "finished_at"),
    "matches": (
        "season_id",
        "block_index",
        "rotation",
        "match_id",
        "suit_permutation",
        "bots_json",
        "balances_json",
        "forfeited_json",
        "deals_played",
    ),
    "results": (
        "season_id",
        "block_index",
        "bot",
        "rank",
        "chips",
        "deals",
        "forfeited",
        "timeouts",
        "illegal",
        "strikes",
        "contracts_bid",
        "contracts_made",
    ),
    "ratings": ("season_id", "bot", "mu", "sigma", "blocks"),
    "rating_history": ("season_id", "block_index", "bot", "mu", "sigma"),
}
LEGACY_TABLES: Final = {
    1: _V1_TABLES,
    2: {
        **_V1_TABLES,
        "seasons": (*_V1_TABLES["seasons"], "status", "status_detail"),
        "season_bots": ("season_id", "bot", "kind", "bot_id", "referee_name", "token_hash"),
    },
}


def check_legacy(connection: sqlalchemy.Connection, user_version: int) -> str:
    """What a ``user_version`` file lacks of its version's tables ("" when nothing), read
    without writing (a refused file stays as it was)."""
    inspector = sqlalchemy.inspect(connection)
    have_tables = set(inspector.get_table_names())
    for table, columns in LEGACY_TABLES[user_version].items():
        if table not in have_tables:
            return f"no table {table!r}"
        have = {column["name"] for column in inspector.get_columns(table)}
        lacking = [column for column in columns if column not in have]
        if lacking:
            return f"table {table!r} has no column {', '.join(map(repr, lacking))}"
    return ""
