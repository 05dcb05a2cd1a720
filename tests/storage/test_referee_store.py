"""The referee's store on both backends (SQLite file, PostgreSQL), the same test bodies."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from brandeln.arena.errors import BotNameTakenError, BotRevokedError, NotFoundError
from brandeln.arena.logrecords import MatchStatus
from brandeln.arena.store.database import MatchRecord, RefereeStore, hash_token
from brandeln.arena.store.schema import METADATA


def record(
    match_id: str, started_at: int, bots: tuple[str, ...], status: MatchStatus
) -> MatchRecord:
    return MatchRecord(
        match_id=match_id,
        ruleset="brandeln-4",
        bot_ids=bots,
        bot_names=tuple(f"name-{b}" for b in bots),
        balances=(1, -1, 2, -2),
        ranks=(2, 3, 1, 4),
        forfeited=(),
        strikes=(0, 0, 0, 0),
        status=status,
        deals_played=3,
        started_at=started_at,
        ended_at=started_at + 5,
        log_path=f"/logs/{match_id}.jsonl",
    )


@pytest.fixture
def store(db_url: str, tmp_path: Path) -> Iterator[RefereeStore]:
    opened = RefereeStore(db_url, tmp_path / "logs")
    yield opened
    opened.close()


def test_bots_register_rotate_revoke(store: RefereeStore) -> None:
    bot, token = store.register_bot("alice")
    assert store.bot_for_token(token) == bot
    with pytest.raises(BotNameTakenError):
        store.register_bot("alice")
    fresh = store.rotate_token(bot.bot_id)
    assert store.bot_for_token(token) is None
    assert store.bot_for_token(fresh) == bot
    store.revoke_bot(bot.bot_id)
    assert store.bot_for_token(fresh) is None
    with pytest.raises(BotRevokedError):
        store.rotate_token(bot.bot_id)
    with pytest.raises(NotFoundError):
        store.bot("bot_nobody")
    assert [b.name for b in store.bots()] == ["alice"]
    # A revoked bot is still known (a match naming it waits for a session, as for any bot).
    assert store.known_bot_ids([bot.bot_id, "bot_nobody"]) == {bot.bot_id}
    assert store.known_bot_ids([]) == set()


def test_admin_token_is_replaced(store: RefereeStore) -> None:
    assert store.admin_token_hash() is None
    store.set_admin_token("one")
    store.set_admin_token("two")
    assert store.admin_token_hash() == hash_token("two")


def test_match_index_upserts_and_lists_newest_first(store: RefereeStore) -> None:
    bots = ("b1", "b2", "b3", "b4")
    store.record_match(record("m_a", 100, bots, MatchStatus.RUNNING))
    store.record_match(record("m_a", 100, bots, MatchStatus.FINISHED))
    store.record_match(record("m_b", 200, ("b1", "b5", "b6", "b7"), MatchStatus.FINISHED))
    assert store.match("m_a").status is MatchStatus.FINISHED
    assert [m.match_id for m in store.matches()] == ["m_b", "m_a"]
    assert [m.match_id for m in store.matches(bot_id="b2")] == ["m_a"]
    assert [m.match_id for m in store.matches(id_prefix="m_b")] == ["m_b"]
    assert store.matches(limit=1)[0].match_id == "m_b"
    assert store.match("m_b") == record("m_b", 200, ("b1", "b5", "b6", "b7"), MatchStatus.FINISHED)


def test_sessions_are_closed_and_pruned(store: RefereeStore) -> None:
    bot, _ = store.register_bot("alice")
    for n in range(1, 6):
        store.session_opened(f"s{n}", bot.bot_id, "1.0", "peer")
    for n in range(1, 5):
        store.session_closed(f"s{n}", keep_per_bot=2)
    assert store.last_session_number() == 5


def test_a_restart_aborts_what_the_dead_referee_left_running(db_url: str, tmp_path: Path) -> None:
    first = RefereeStore(db_url, tmp_path / "logs")
    bot, _ = first.register_bot("alice")
    first.record_match(record("m_run", 1, ("b1", "b2", "b3", "b4"), MatchStatus.RUNNING))
    first.session_opened("s1", bot.bot_id, "1", "peer")
    first.close()  # its referee is gone
    second = RefereeStore(db_url, tmp_path / "logs")
    assert second.mark_running_aborted() == 1
    assert second.close_open_sessions() == 1
    assert second.match("m_run").status is MatchStatus.ABORTED
    second.close()


def test_unknown_bots_are_not_found(store: RefereeStore) -> None:
    with pytest.raises(NotFoundError):
        store.revoke_bot("bot_nobody")
    with pytest.raises(NotFoundError):
        store.rotate_token("bot_nobody")


def test_the_migrations_build_exactly_the_tables_of_the_schema(store: RefereeStore) -> None:
    with store.engine.connect() as conn:
        schema = "referee" if store.shared else None
        context = MigrationContext.configure(
            conn,
            opts={
                "include_schemas": False,
                "version_table_schema": schema,
                "compare_server_default": False,
                # Alembic's own table: in the referee schema on PostgreSQL, never in METADATA.
                "include_name": lambda name, kind, _parent: name != "alembic_version",
            },
        )
        differences = compare_metadata(context, METADATA)
    assert differences == []
