"""The referee database's Alembic migrations (applied on open by brandeln.arena.store.database).

``env.py`` runs them on the connection ``brandeln.datastore.migrations.upgrade`` hands over; the
revisions in ``versions/`` are numbered: 0001 is the SQLite schema of ``user_version`` 1
(today's files are stamped with it, then upgraded), 0002 adds what several referees on one
PostgreSQL need and the match logs table.
"""

from pathlib import Path

SCRIPT_LOCATION = Path(__file__).resolve().parent
