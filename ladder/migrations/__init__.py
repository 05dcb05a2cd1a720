"""The ladder database's Alembic migrations (``versions/``), run on open by
:func:`datastore.migrations.upgrade` from :meth:`ladder.storage.LadderStore.open`.

Revision 0001 is the schema that ``PRAGMA user_version`` 1 files hold, 0002 that of version 2
(so today's files are stamped and upgraded from there), 0003 added block claims and per-bot
totals. A revision's ops are written for both SQLite and PostgreSQL.
"""

from pathlib import Path
from typing import Final

SCRIPT_LOCATION: Final = Path(__file__).resolve().parent
# The ladder files from before Alembic: their PRAGMA user_version -> the revision they match.
LEGACY_REVISIONS: Final = {1: "0001", 2: "0002"}
