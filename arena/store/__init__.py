"""The referee's database and match logs: SQLite by default, PostgreSQL
by URL; nothing above it writes SQL."""
