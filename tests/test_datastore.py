"""datastore: the base both stores share (its private-file helper is in test_private_files)."""

from __future__ import annotations

import doctest
import sqlite3
from pathlib import Path

import datastore.sqlite_schema
from datastore.sqlite_schema import missing_schema

SCHEMA = "CREATE TABLE bots (bot_id TEXT PRIMARY KEY, name TEXT); CREATE TABLE runs (n INTEGER);"


def test_the_module_examples_hold() -> None:
    assert doctest.testmod(datastore.sqlite_schema).failed == 0


def test_a_full_schema_lacks_nothing_and_the_check_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(SCHEMA)
    before = path.read_bytes()
    db = sqlite3.connect(path)
    try:
        assert missing_schema(db, SCHEMA) == ""
    finally:
        db.close()
    assert path.read_bytes() == before


def test_the_first_missing_table_or_column_is_named() -> None:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE bots (bot_id TEXT)")
    assert missing_schema(db, SCHEMA) == "table 'bots' has no column 'name'"
    assert missing_schema(db, SCHEMA, frozenset({"bots.name"})) == "no table 'runs'"
