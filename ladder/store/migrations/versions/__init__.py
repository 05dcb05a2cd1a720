"""The revisions, oldest first (Alembic loads every module here)."""
