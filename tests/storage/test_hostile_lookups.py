"""Names, ids and prefixes reach SQL only as bound parameters, on both backends.

A bot's name is the registrant's text; a season name, a bot id or a match id prefix is what a
user typed on the command line or in a URL. Quotes, SQL's wildcards (``%``, ``_``), backslashes
and a NUL must be read as themselves: stored and read back unchanged, matching only themselves,
and a lookup of one that names nothing is "not found" (never a driver error, never every row).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from brandeln.arena.errors import NotFoundError
from brandeln.arena.logrecords import MatchStatus
from brandeln.arena.store.database import MatchRecord, RefereeStore
from brandeln.cli.main import app
from brandeln.ladder.errors import UnknownSeasonError
from brandeln.ladder.store.database import LadderStore
from brandeln.web.app import StorageLocation, create_app
from tests.web.addresses import APP_BASE

# Registered names may hold any printable text (brandeln.arena.names): these are all legal names.
HOSTILE_NAMES = (
    "O'Brien",
    'say "hi"',
    "100%",
    "a_b",
    "back\\slash",
    "'; DROP TABLE bots; --",
    "%' OR '1'='1",
)
# What a user may type where an id, a prefix or a season's name is looked up; none names
# anything stored below.
HOSTILE_KEYS = ("%", "_", "%%", "m_%", "'", "' OR '1'='1", "\\", "m\\_", "a\x00b", "\x00")

runner = CliRunner()


def _record(match_id: str, started_at: int, bots: tuple[str, ...]) -> MatchRecord:
    return MatchRecord(
        match_id=match_id,
        ruleset="standard",
        bot_ids=bots,
        bot_names=bots,
        balances=(1, -1, 2, -2),
        ranks=(2, 3, 1, 4),
        forfeited=(),
        strikes=(0, 0, 0, 0),
        status=MatchStatus.FINISHED,
        deals_played=1,
        started_at=started_at,
        ended_at=started_at + 1,
        log_path=f"/logs/{match_id}.jsonl",
    )


@pytest.fixture
def store(db_url: str, tmp_path: Path) -> Iterator[RefereeStore]:
    opened = RefereeStore(db_url, tmp_path / "logs")
    yield opened
    opened.close()


def test_hostile_bot_names_are_stored_and_read_back_as_written(store: RefereeStore) -> None:
    registered = {store.register_bot(name)[0].bot_id: name for name in HOSTILE_NAMES}
    assert {bot.bot_id: bot.name for bot in store.bots()} == registered
    for bot_id, name in registered.items():
        assert store.bot(bot_id).name == name


@pytest.mark.parametrize("key", HOSTILE_KEYS)
def test_a_hostile_id_or_prefix_matches_nothing_and_is_not_found(
    store: RefereeStore, key: str
) -> None:
    bots = tuple(store.register_bot(name)[0].bot_id for name in HOSTILE_NAMES[:4])
    store.record_match(_record("m_0123456789abcdef", 1, bots))
    store.record_match(_record("m_fedcba9876543210", 2, bots))
    assert store.matches(id_prefix=key) == []
    assert store.matches(bot_id=key) == []
    assert store.known_bot_ids([key]) == set()
    with pytest.raises(NotFoundError):
        store.bot(key)
    with pytest.raises(NotFoundError):
        store.match(key)
    # The wildcards' own meaning is never applied: a real prefix still finds its one match.
    assert [m.match_id for m in store.matches(id_prefix="m_0")] == ["m_0123456789abcdef"]


@pytest.mark.parametrize("key", HOSTILE_KEYS)
def test_a_hostile_season_name_or_bot_id_is_unknown_to_the_ladder(db_url: str, key: str) -> None:
    ladder = LadderStore.open(db_url)
    try:
        with pytest.raises(UnknownSeasonError):
            ladder.seasons.season(key)
        with pytest.raises(UnknownSeasonError):
            ladder.bots.bot_identities(key)
        assert ladder.bots.seasons_of_bot(key) == []
    finally:
        ladder.close()


@pytest.mark.parametrize("key", HOSTILE_KEYS)
def test_the_cli_says_not_found_in_one_line_for_a_hostile_key(
    db_url: str, tmp_path: Path, key: str
) -> None:
    data = tmp_path / "data"
    if db_url.startswith("postgresql"):
        where = ["--db", db_url]
        RefereeStore(db_url, tmp_path / "logs").close()
        LadderStore.open(db_url).close()
    else:  # a data folder: the referee's and the ladder's SQLite files
        where = ["--data", str(data)]
        RefereeStore(data / "referee.db", data / "logs").close()
        LadderStore.open(data / "ladder.db").close()
    for args in (
        ["matches", "show", key],
        ["ratings", "--season", key],
        ["matches", "list", "--bot", key],
    ):
        result = runner.invoke(app, [*args, *where])
        assert "Traceback" not in result.output, result.output
        assert isinstance(result.exception, SystemExit), result.output
        assert result.exit_code == 1, result.output
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.output
        assert lines[0].startswith("error: "), lines[0]


@pytest.mark.parametrize("key", HOSTILE_KEYS)
def test_the_web_pages_say_not_found_for_a_hostile_key(
    pg_url: str, tmp_path: Path, key: str
) -> None:
    # On PostgreSQL: the web app serves SQLite from a data folder (tested with the pages).
    RefereeStore(pg_url, tmp_path / "logs").close()
    LadderStore.open(pg_url).close()
    pages = create_app(StorageLocation(db_url=pg_url))
    client = TestClient(pages, base_url=APP_BASE, raise_server_exceptions=False)
    with client:
        for path in ("/seasons/{}", "/seasons/{}/leaderboard", "/bots/{}", "/matches/{}"):
            page = client.get(path.format(quote(key, safe="")))
            assert page.status_code in (400, 404), (path, key, page.status_code, page.text[:300])
