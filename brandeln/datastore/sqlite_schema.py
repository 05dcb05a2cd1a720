"""Does an SQLite file hold a schema? Read without writing, so a refused file stays as it was.

>>> import sqlite3
>>> db = sqlite3.connect(":memory:")
>>> missing_schema(db, "CREATE TABLE t (a INTEGER, b TEXT);")
"no table 't'"
>>> _ = db.execute("CREATE TABLE t (a INTEGER)")
>>> missing_schema(db, "CREATE TABLE t (a INTEGER, b TEXT);")
"table 't' has no column 'b'"
>>> missing_schema(db, "CREATE TABLE t (a INTEGER, b TEXT);", frozenset({"t.b"}))
''
"""

from __future__ import annotations

import sqlite3

__all__ = ["missing_schema"]


def missing_schema(
    db: sqlite3.Connection, schema: str, exempt: frozenset[str] = frozenset()
) -> str:
    """What ``db`` lacks of ``schema``'s tables and columns ("" when nothing). The expected
    shape comes from building ``schema`` in memory. Columns named ``table.column`` in
    ``exempt`` are not required (an older version's file that an upgrade will give them)."""
    expected = sqlite3.connect(":memory:")
    try:
        expected.executescript(schema)
        tables = [
            row[0]
            for row in expected.execute(
                "SELECT name FROM sqlite_master WHERE type='table' ORDER BY rowid"
            )
        ]
        for table in tables:
            want = [row[1] for row in expected.execute(f"PRAGMA table_info({table})")]
            have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
            if not have:
                return f"no table {table!r}"
            lacking = [c for c in want if c not in have and f"{table}.{c}" not in exempt]
            if lacking:
                return f"table {table!r} has no column {', '.join(map(repr, lacking))}"
    finally:
        expected.close()
    return ""
