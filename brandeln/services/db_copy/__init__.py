"""Both stores and every match log copied, SQLite <-> PostgreSQL (`brandeln db copy SRC DST`).

SRC and DST are each a data folder (its ``referee.db`` or ``embedded/referee.db``, its logs,
its ``ladder.db``) or a PostgreSQL URL (one database: the ``referee`` and ``ladder`` schemas,
the logs in ``referee.match_logs``). The copy lives in the services, beside the CLI, because it
composes the two sides (arena and ladder never import each other).

How: each side's destination is opened through its own migrations (the same tables at the
same revision as the source, which is opened, and so migrated, the same way); every table of
the side's ``METADATA`` is copied row for row in its foreign-key order, except the logs table,
whose logs are copied as logs: read whole from the source (a file or the database), written
whole to the destination (a 0600 file in ``DST/logs``, or one piece in ``match_logs``), and
the match row's ``log_path`` says where. Then it is verified: every row of every table read
back from both and compared (``log_path`` as rewritten), every log read back and compared
byte for byte. A destination that holds any row is refused unless ``force`` (which empties
its tables first).
"""

from __future__ import annotations

from brandeln.services.db_copy.copying import copy_stores
from brandeln.services.db_copy.sides import CopyError, Tally

__all__ = ["CopyError", "Tally", "copy_stores"]
