"""The ladder database: schema, seasons, one transaction per block, in-order ratings, errors.

The tests about storage run on both backends with the same bodies (the ``store`` fixture here
is on ``db_url``: an SQLite file and a fresh PostgreSQL database); those about SQLite files
(modes, legacy files, another program's file) on SQLite alone.
"""

from __future__ import annotations

import shutil
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy

from brandeln.datastore.url import parse_database_url
from brandeln.ladder.errors import SeasonMismatchError, StorageError, UnknownSeasonError
from brandeln.ladder.ratings.order import record_and_rate
from brandeln.ladder.ratings.trueskill_model import Rating, RatingModel
from brandeln.ladder.store.database import (
    SCHEMA_VERSION,
    LadderStore,
    RatedBlock,
    SeasonStatus,
    token_hash,
)
from brandeln.ladder.store.schema import ClaimState
from tests.ladder.season_helpers import finished_block, season_config

DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.fixture
def store(db_url: str) -> Iterator[LadderStore]:
    with LadderStore.open(db_url) as opened:
        yield opened


CONFIG = season_config(("a", "b", "c", "d", "e"), blocks=4)
MODEL = RatingModel(CONFIG.rating)
BOTS = ("a", "b", "c", "d")


def test_the_schema_is_created_on_first_use_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "dir" / "ladder.db"
    with LadderStore.open(path):
        pass
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {row[0] for row in raw.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {
        "seasons",
        "season_bots",
        "blocks",
        "matches",
        "results",
        "ratings",
        "rating_history",
    } <= tables
    raw.close()
    with LadderStore.open(path) as reopened:  # opening again keeps it
        assert reopened.seasons.season_names() == []


def test_a_missing_database_is_a_clear_error_when_not_creating(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match=r"no ladder database at .*run `brandeln season run"):
        LadderStore.open(tmp_path / "nope.db", create=False)


def test_a_corrupt_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "ladder.db"
    path.write_bytes(b"this is not sqlite at all, just text" * 100)
    with pytest.raises(StorageError, match="not a usable ladder database"):
        LadderStore.open(path)


def test_another_sqlite_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE recipes (name TEXT)")
    raw.commit()
    raw.close()
    with pytest.raises(StorageError, match="not a ladder database"):
        LadderStore.open(path)


def test_a_newer_schema_is_refused(db_url: str) -> None:
    with LadderStore.open(db_url) as store:
        store.seasons.ensure_season(CONFIG, MODEL.initial())
    # What a newer brandeln leaves: a revision this code does not know.
    version_table = sqlalchemy.table("alembic_version", sqlalchemy.column("version_num"))
    if "postgresql" in db_url:
        version_table.schema = "ladder"
    engine = sqlalchemy.create_engine(parse_database_url(db_url).url)
    with engine.begin() as connection:
        connection.execute(sqlalchemy.update(version_table).values(version_num="9999"))
    engine.dispose()
    with pytest.raises(StorageError) as caught:
        LadderStore.open(db_url)
    assert "schema is version 9999, this brandeln knows up to" in str(caught.value)
    assert "upgrade brandeln" in str(caught.value)


def test_a_file_of_a_newer_user_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ladder.db"
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE seasons (season_id INTEGER)")
    raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    raw.commit()
    raw.close()
    with pytest.raises(StorageError, match="upgrade brandeln"):
        LadderStore.open(path)


def _legacy_copy(version: int, tmp_path: Path) -> Path:
    """A copy of a ladder database that brandeln of schema ``version`` wrote
    (tests/data/make_legacy_ladder_dbs.py made them with that code)."""
    path = tmp_path / "ladder.db"
    shutil.copyfile(DATA / f"ladder_v{version}.db", path)
    return path


def _raw_rows(path: Path, query: str) -> list[tuple[object, ...]]:
    raw = sqlite3.connect(path)
    try:
        return [tuple(row) for row in raw.execute(query)]
    finally:
        raw.close()


@pytest.mark.parametrize("version", [1, 2])
def test_a_database_of_an_older_version_is_upgraded_keeping_everything(
    version: int, tmp_path: Path
) -> None:
    path = _legacy_copy(version, tmp_path)
    ratings = _raw_rows(path, "SELECT bot, mu, sigma, blocks FROM ratings ORDER BY bot")
    results = _raw_rows(path, "SELECT block_index, bot, rank, chips FROM results ORDER BY 1, 2")
    matches = _raw_rows(path, "SELECT block_index, rotation, match_id FROM matches ORDER BY 1, 2")
    with LadderStore.open(path, create=False) as store:
        assert store.seasons.season_names() == ["legacy"]
        assert store.blocks.finished_blocks("legacy") == {0, 1, 3}
        assert store.blocks.next_to_rate("legacy") == 2  # block 3 waits for block 2
        got = [
            (r.bot, r.rating.mu, r.rating.sigma, r.blocks) for r in store.reads.ratings("legacy")
        ]
        assert got == ratings
        assert [(i, r.bot, r.rank, r.chips) for i, r in store.reads.results("legacy")] == results
        assert [(m.block_index, m.rotation, m.match_id) for m in store.reads.matches("legacy")] == (
            matches
        )
        assert store.seasons.season("legacy").status is SeasonStatus.RUNNING  # 3 of 4 blocks
        # The totals the leaderboard reads were made from the rated blocks.
        rated = store.reads.results("legacy", rated_only=True)
        assert store.reads.bot_totals("legacy")["a"].chips == sum(
            r.chips for _, r in rated if r.bot == "a"
        )
        # The block not played yet can be claimed, the recorded ones not.
        assert store.blocks.claim_block("legacy", "test-runner") == 2
        assert store.blocks.claim_block("legacy", "test-runner") is None
        identities = store.bots.bot_identities("legacy")
    assert identities["a"].token_hash == token_hash("plaintext-token-of-a-0123456789abcdef")
    assert _raw_rows(path, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    with LadderStore.open(path, create=False) as again:  # and it opens as a current database
        assert again.blocks.finished_blocks("legacy") == {0, 1, 3}


def test_a_schema_1_database_is_migrated_and_its_seasons_get_a_status(tmp_path: Path) -> None:
    path = _legacy_copy(1, tmp_path)
    raw = sqlite3.connect(path)
    # A second season with all its blocks: version 2 calls it finished.
    raw.execute(
        "INSERT INTO seasons (season_id, name, settings_json, ruleset, players,"
        " blocks_planned, created_at, updated_at) VALUES (2, 's1', '{}', 'standard', 4, 1, 0, 0)"
    )
    raw.execute("INSERT INTO blocks VALUES (2, 0, '1', '[]', 0)")
    raw.commit()
    raw.close()
    with LadderStore.open(path) as store:
        assert store.seasons.season("s1").status == SeasonStatus.FINISHED  # 1 of 1 blocks
        assert store.seasons.season("legacy").status == SeasonStatus.RUNNING  # 3 of 4
        store.seasons.set_season_status("legacy", SeasonStatus.FAILED, "bot 'b' exited")
    with LadderStore.open(path) as reopened:
        assert reopened.seasons.season("legacy").status_detail == "bot 'b' exited"


def test_ensure_season_creates_it_with_initial_ratings(store: LadderStore) -> None:
    info = store.seasons.ensure_season(CONFIG, MODEL.initial())
    assert (info.name, info.players, info.blocks_planned, info.blocks_finished) == (
        "test-season",
        4,
        4,
        0,
    )
    assert [(row.bot, row.rating, row.blocks) for row in store.reads.ratings("test-season")] == [
        (bot, MODEL.initial(), 0) for bot in "abcde"
    ]
    identities = store.bots.bot_identities("test-season")
    assert identities["a"].kind == "command"
    assert identities["a"].bot_id is None


def test_ensure_season_accepts_more_blocks_and_other_timing(store: LadderStore) -> None:
    store.seasons.ensure_season(CONFIG, MODEL.initial())
    longer = season_config(
        ("a", "b", "c", "d", "e"), blocks=9, concurrency=1, extra="[time_control]\nmove_ms = 5"
    )
    assert store.seasons.ensure_season(longer, MODEL.initial()).blocks_planned == 9


@pytest.mark.parametrize(
    ("changed", "names"),
    [
        (season_config(("a", "b", "c", "d", "e"), seed=8), "seed"),
        (season_config(("a", "b", "c", "d", "x")), "bots"),
        (season_config(("a", "b", "c", "d", "e"), deals=8), "deals_per_match"),
        (season_config(("a", "b", "c", "d", "e"), extra="[rating]\nbeta = 2.0"), "rating"),
        (
            season_config(("a", "b", "c", "d", "e"), extra='[options]\nundertrump = "free"'),
            "options",
        ),
    ],
)
def test_a_season_with_changed_settings_is_refused(
    store: LadderStore, changed: object, names: str
) -> None:
    store.seasons.ensure_season(CONFIG, MODEL.initial())
    with pytest.raises(SeasonMismatchError, match=f"changed.*: {names}"):
        store.seasons.ensure_season(changed, MODEL.initial())  # type: ignore[arg-type]


def test_unknown_seasons_name_the_known_ones(store: LadderStore) -> None:
    store.seasons.ensure_season(CONFIG, MODEL.initial())
    with pytest.raises(UnknownSeasonError, match="no season named 'x'; seasons: test-season"):
        store.seasons.season("x")


def test_a_block_is_recorded_with_matches_results_and_ratings(store: LadderStore) -> None:
    store.seasons.ensure_season(CONFIG, MODEL.initial())
    plan, outcomes, results = finished_block(0, BOTS, (6, -2, -2, -2))
    assert record_and_rate(store, "test-season", plan, outcomes, results, MODEL.rate_block) == [0]
    assert store.blocks.finished_blocks("test-season") == {0}
    assert [m.match_id for m in store.reads.matches("test-season")] == [
        "b0r0",
        "b0r1",
        "b0r2",
        "b0r3",
    ]
    recorded = {r.bot: r for _, r in store.reads.results("test-season")}
    assert recorded == results
    expected = MODEL.rate_block({}, {bot: r.rank for bot, r in results.items()})
    ratings = {row.bot: row for row in store.reads.ratings("test-season")}
    for bot in BOTS:
        assert ratings[bot].rating == expected[bot]
        assert ratings[bot].blocks == 1
    assert ratings["e"].rating == MODEL.initial()
    assert ratings["e"].blocks == 0
    assert [(index, bot) for index, bot, _ in store.reads.rating_history("test-season")] == [
        (0, b) for b in BOTS
    ]


def test_recording_a_block_again_with_the_same_matches_changes_nothing(
    store: LadderStore,
) -> None:
    # A retried transaction whose first commit landed after all: idempotent.
    store.seasons.ensure_season(CONFIG, MODEL.initial())
    plan, outcomes, results = finished_block(0, BOTS, (6, -2, -2, -2))
    record_and_rate(store, "test-season", plan, outcomes, results, MODEL.rate_block)
    before = (
        store.reads.ratings("test-season"),
        store.reads.results("test-season"),
        store.reads.matches("test-season"),
        store.reads.rating_history("test-season"),
    )
    assert record_and_rate(store, "test-season", plan, outcomes, results, MODEL.rate_block) == []
    assert before == (
        store.reads.ratings("test-season"),
        store.reads.results("test-season"),
        store.reads.matches("test-season"),
        store.reads.rating_history("test-season"),
    )


def test_recording_a_block_twice_with_other_matches_is_refused_and_changes_nothing(
    store: LadderStore,
) -> None:
    store.seasons.ensure_season(CONFIG, MODEL.initial())
    plan, outcomes, results = finished_block(0, BOTS, (6, -2, -2, -2))
    record_and_rate(store, "test-season", plan, outcomes, results, MODEL.rate_block)
    before = (
        store.reads.ratings("test-season"),
        store.reads.results("test-season"),
        store.reads.matches("test-season"),
    )
    other = finished_block(0, BOTS, (-2, 6, -2, -2))
    with pytest.raises(StorageError, match="block 0 cannot be recorded"):
        record_and_rate(store, "test-season", *other, MODEL.rate_block)
    assert before == (
        store.reads.ratings("test-season"),
        store.reads.results("test-season"),
        store.reads.matches("test-season"),
    )


def test_a_failure_inside_the_transaction_leaves_no_trace(store: LadderStore) -> None:
    store.seasons.ensure_season(CONFIG, MODEL.initial())
    plan, outcomes, results = finished_block(0, BOTS, (6, -2, -2, -2))

    def broken_rating(before: object, ranking: object) -> dict[str, Rating]:
        raise RuntimeError("trueskill exploded")

    with pytest.raises(RuntimeError, match="exploded"):
        record_and_rate(store, "test-season", plan, outcomes, results, broken_rating)
    assert store.blocks.finished_blocks("test-season") == set()
    assert store.reads.matches("test-season") == []
    assert store.reads.results("test-season") == []
    # and the block can then be recorded normally
    assert record_and_rate(store, "test-season", plan, outcomes, results, MODEL.rate_block) == [0]


def test_ratings_are_applied_in_block_order_whatever_the_finishing_order(db_url: str) -> None:
    blocks = [
        finished_block(0, ("a", "b", "c", "d"), (6, -2, -2, -2)),
        finished_block(1, ("e", "a", "b", "c"), (3, 3, -3, -3)),
        finished_block(2, ("d", "e", "a", "b"), (0, 0, 0, 0)),
    ]
    histories = []
    for number, order in enumerate(([0, 1, 2], [2, 0, 1], [1, 2, 0])):
        with LadderStore.open(db_url) as store:
            config = season_config(("a", "b", "c", "d", "e"), blocks=4, name=f"s{number}")
            store.seasons.ensure_season(config, MODEL.initial())
            rated_now = [
                record_and_rate(store, f"s{number}", *blocks[index], MODEL.rate_block)
                for index in order
            ]
            if order == [2, 0, 1]:
                assert rated_now == [[], [0], [1, 2]]
                # block 2 waited for blocks 0 and 1: its results are in, its rating was not
            histories.append(
                (
                    store.reads.ratings(f"s{number}"),
                    store.reads.rating_history(f"s{number}"),
                    store.reads.bot_totals(f"s{number}"),
                )
            )
    assert histories[0] == histories[1] == histories[2]


def test_the_store_keeps_the_ratings_it_is_given_and_refuses_a_stale_rating_position(
    store: LadderStore,
) -> None:
    store.seasons.ensure_season(CONFIG, MODEL.initial())
    given = RatedBlock(0, {"a": Rating(30.0, 2.0)})
    store.blocks.record_block(
        "test-season", *finished_block(0, BOTS, (6, -2, -2, -2)), [given], next_to_rate=0
    )
    assert {row.bot: row.rating for row in store.reads.ratings("test-season")}["a"] == Rating(
        30.0, 2.0
    )
    assert store.blocks.next_to_rate("test-season") == 1
    with pytest.raises(StorageError, match="ratings stand at block 1, not 0"):
        store.blocks.record_block(
            "test-season", *finished_block(1, BOTS, (0, 0, 0, 0)), [], next_to_rate=0
        )
    assert store.blocks.finished_blocks("test-season") == {0}


def test_results_rated_only_leaves_out_blocks_waiting_for_an_earlier_one(
    store: LadderStore,
) -> None:
    store.seasons.ensure_season(CONFIG, MODEL.initial())
    record_and_rate(
        store,
        "test-season",
        *finished_block(1, ("e", "a", "b", "c"), (0, 0, 0, 0)),
        MODEL.rate_block,
    )
    assert store.reads.results("test-season", rated_only=True) == []
    assert len(store.reads.results("test-season")) == 4


def test_bot_identities_are_saved_and_read_back(store: LadderStore) -> None:
    store.seasons.ensure_season(CONFIG, MODEL.initial())
    store.bots.save_bot_identity(
        "test-season", "a", bot_id="id-a", token_hash=token_hash("tok-a"), referee_name="a@s"
    )
    identity = store.bots.bot_identities("test-season")["a"]
    assert (identity.bot_id, identity.token_hash, identity.referee_name) == (
        "id-a",
        token_hash("tok-a"),
        "a@s",
    )
    with pytest.raises(StorageError, match="has no bot 'zz'"):
        store.bots.save_bot_identity(
            "test-season", "zz", bot_id="1", token_hash="2", referee_name="3"
        )


def test_latest_season_is_the_one_updated_last(store: LadderStore) -> None:
    assert store.seasons.latest_season() is None
    store.seasons.ensure_season(CONFIG, MODEL.initial())
    other = season_config(name="other")
    store.seasons.ensure_season(other, MODEL.initial())
    record_and_rate(store, "test-season", *finished_block(0, BOTS, (0, 0, 0, 0)), MODEL.rate_block)
    latest = store.seasons.latest_season()
    assert latest is not None
    assert latest.name == "test-season"
    assert store.seasons.season_names() == ["test-season", "other"]


def test_seasons_reads_every_season_oldest_first_in_one_listing(store: LadderStore) -> None:
    assert store.seasons.seasons() == []
    store.seasons.ensure_season(CONFIG, MODEL.initial())
    store.seasons.ensure_season(season_config(name="other"), MODEL.initial())
    store.seasons.set_season_status("other", SeasonStatus.FAILED, "the referee went away")
    listed = store.seasons.seasons()
    assert [info.name for info in listed] == ["test-season", "other"]
    assert listed == [store.seasons.season(name) for name in store.seasons.season_names()]
    assert listed[1].status is SeasonStatus.FAILED
    assert listed[1].status_detail == "the referee went away"


def test_seasons_of_bot_name_it_in_each_season_it_played_newest_first(
    store: LadderStore,
) -> None:
    store.seasons.ensure_season(CONFIG, MODEL.initial())
    store.seasons.ensure_season(season_config(("p", "q", "r", "s"), name="other"), MODEL.initial())
    store.seasons.ensure_season(season_config(name="third"), MODEL.initial())
    assert store.bots.seasons_of_bot("b_7") == []
    for season, bot, bot_id in (
        ("test-season", "b", "b_7"),
        ("other", "q", "b_7"),
        ("third", "c", "c_9"),
    ):
        store.bots.save_bot_identity(
            season, bot, bot_id=bot_id, token_hash=token_hash("t"), referee_name=f"{bot}@x"
        )
    assert store.bots.seasons_of_bot("b_7") == [("other", "q"), ("test-season", "b")]
    assert store.bots.seasons_of_bot("c_9") == [("third", "c")]


def test_data_survives_reopening(db_url: str) -> None:
    path = db_url
    with LadderStore.open(path) as store:
        store.seasons.ensure_season(CONFIG, MODEL.initial())
        record_and_rate(
            store, "test-season", *finished_block(0, BOTS, (6, -2, -2, -2)), MODEL.rate_block
        )
        ratings = store.reads.ratings("test-season")
    with LadderStore.open(path, create=False) as store:
        assert store.reads.ratings("test-season") == ratings
        assert store.seasons.season("test-season").blocks_finished == 1


def test_a_version_1_database_keeps_working_and_loses_its_plaintext_tokens(
    tmp_path: Path,
) -> None:
    path = _legacy_copy(1, tmp_path)
    tokens = {bot: f"plaintext-token-of-{bot}-0123456789abcdef" for bot in ("a", "b", "c")}

    def files() -> list[Path]:
        return sorted(tmp_path.glob("ladder.db*"))

    assert any(tokens["a"].encode() in f.read_bytes() for f in files())  # the premise

    with LadderStore.open(path, create=False) as store:
        identities = store.bots.bot_identities("legacy")
        assert store.blocks.finished_blocks("legacy") == {0, 1, 3}
    assert {bot: (i.bot_id, i.referee_name, i.token_hash) for bot, i in identities.items()} == {
        **{bot: (f"id-{bot}", f"{bot}@legacy", token_hash(tokens[bot])) for bot in tokens},
        "e": ("bot_e", None, None),
    }
    for file in files():
        data = file.read_bytes()
        assert not [bot for bot, token in tokens.items() if token.encode() in data], file
    columns = [row[1] for row in _raw_rows(path, "PRAGMA table_info(season_bots)")]
    assert "token" not in columns


def test_processes_opening_a_new_database_at_once_all_get_the_schema(tmp_path: Path) -> None:
    # A runner and `brandeln ratings` may open the same new file at the same moment: the one
    # that comes second finds the schema made, not "table seasons already exists".
    import threading  # noqa: PLC0415

    path = tmp_path / "ladder.db"
    start = threading.Barrier(8)
    failures: list[BaseException] = []

    def open_it() -> None:
        start.wait()
        try:
            LadderStore.open(path).close()
        except BaseException as error:  # collected for the assertion
            failures.append(error)

    threads = [threading.Thread(target=open_it) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    with LadderStore.open(path) as store:
        assert store.seasons.season_names() == []


# -- block claims (several runners of one season) -------------------------------------------


def test_claims_hand_each_block_to_one_runner_until_none_is_left(store: LadderStore) -> None:
    store.seasons.ensure_season(CONFIG, MODEL.initial())  # 4 blocks
    first = [store.blocks.claim_block("test-season", "here/1/a") for _ in range(2)]
    second = [store.blocks.claim_block("test-season", "here/2/b") for _ in range(3)]
    assert first == [0, 1]
    assert second == [2, 3, None]


def test_the_claims_of_a_dead_runner_are_taken_over_and_a_live_ones_are_not(
    store: LadderStore,
) -> None:
    import socket  # noqa: PLC0415

    from brandeln.ladder.season.claims import new_runner_id, retire  # noqa: PLC0415

    store.seasons.ensure_season(season_config(("a", "b", "c", "d"), blocks=2), MODEL.initial())
    dead = f"{socket.gethostname()}/999999999/gone"  # this host, no such process
    alive = new_runner_id()  # this very process
    assert store.blocks.claim_block("test-season", dead) == 0
    assert store.blocks.claim_block("test-season", alive) == 1
    newcomer = new_runner_id()
    assert store.blocks.claim_block("test-season", newcomer) == 0  # the dead runner's
    assert store.blocks.claim_block("test-season", newcomer) is None  # the live one keeps block 1
    assert store.blocks.claims("test-season")[0] == (ClaimState.CLAIMED, newcomer)
    retire(alive)  # a run of this process that is over: as dead as a killed one
    assert store.blocks.claim_block("test-season", newcomer) == 1
    retire(newcomer)


def test_a_claim_of_another_host_is_taken_over_only_when_its_heartbeat_is_stale(
    store: LadderStore,
) -> None:
    store.seasons.ensure_season(season_config(("a", "b", "c", "d"), blocks=1), MODEL.initial())
    assert store.blocks.claim_block("test-season", "far-away-host/12/x") == 0
    assert store.blocks.claim_block("test-season", "here/1/y") is None
    assert store.blocks.claim_block("test-season", "here/1/y", stale_after_ms=-1) == 0


def test_released_claims_and_recorded_blocks(store: LadderStore) -> None:
    store.seasons.ensure_season(season_config(("a", "b", "c", "d"), blocks=2), MODEL.initial())
    assert store.blocks.claim_block("test-season", "r/1/a") == 0
    assert store.blocks.claim_block("test-season", "r/1/a") == 1
    record_and_rate(
        store, "test-season", *finished_block(0, BOTS, (1, 1, -1, -1)), MODEL.rate_block
    )
    store.blocks.release_claims("test-season", "r/1/a")
    assert store.blocks.claims("test-season") == {
        0: (ClaimState.DONE, "r/1/a"),
        1: (ClaimState.OPEN, None),
    }
    assert store.blocks.claim_block("test-season", "r/2/b") == 1


def test_concurrent_claims_never_give_a_block_twice(db_url: str) -> None:
    with LadderStore.open(db_url) as store:
        store.seasons.ensure_season(season_config(("a", "b", "c", "d"), blocks=24), MODEL.initial())
    got: list[int] = []
    failures: list[BaseException] = []
    start = threading.Barrier(6)

    def claim_all(number: int) -> None:
        try:
            with LadderStore.open(db_url) as own:
                start.wait()
                while (
                    index := own.blocks.claim_block("test-season", f"far/{number}/x")
                ) is not None:
                    got.append(index)
        except BaseException as error:  # collected for the assertion
            failures.append(error)

    threads = [threading.Thread(target=claim_all, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert sorted(got) == list(range(24))


def test_concurrent_writers_rate_in_block_order(db_url: str) -> None:
    # Runners record blocks in whatever order they finish, each through its own connection:
    # the ratings still come out as if recorded in block order.
    config = season_config(("a", "b", "c", "d", "e"), blocks=6)
    bots = ("a", "b", "c", "d", "e")
    blocks = [
        finished_block(i, tuple(bots[(i + k) % 5] for k in range(4)), (3, 1, -1, -3))
        for i in range(6)
    ]
    with LadderStore.open(db_url) as store:
        store.seasons.ensure_season(config, MODEL.initial())
    failures: list[BaseException] = []
    start = threading.Barrier(3)

    def record(indexes: list[int]) -> None:
        try:
            with LadderStore.open(db_url) as own:
                start.wait()
                for index in indexes:
                    record_and_rate(own, "test-season", *blocks[index], MODEL.rate_block)
        except BaseException as error:  # collected for the assertion
            failures.append(error)

    threads = [threading.Thread(target=record, args=(part,)) for part in ([5, 0, 3], [1, 4], [2])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    with LadderStore.open(db_url) as store:
        concurrent = (store.reads.ratings("test-season"), store.reads.rating_history("test-season"))
        reference_config = season_config(("a", "b", "c", "d", "e"), blocks=6, name="in-order")
        store.seasons.ensure_season(reference_config, MODEL.initial())
        for block in blocks:
            record_and_rate(store, "in-order", *block, MODEL.rate_block)
        assert concurrent == (
            store.reads.ratings("in-order"),
            store.reads.rating_history("in-order"),
        )


def test_the_leaderboard_from_the_totals_is_the_one_from_every_result(store: LadderStore) -> None:
    from brandeln.ladder.ratings.leaderboard import leaderboard, season_leaderboard  # noqa: PLC0415

    store.seasons.ensure_season(CONFIG, MODEL.initial())
    for index, chips in enumerate([(6, -2, -2, -2), (3, 3, -3, -3), (1, -1, 2, -2)]):
        bots = tuple(("a", "b", "c", "d", "e")[(index + k) % 5] for k in range(4))
        record_and_rate(store, "test-season", *finished_block(index, bots, chips), MODEL.rate_block)
    # Block 4 waits for block 3: neither its totals nor its results count yet.
    record_and_rate(
        store, "test-season", *finished_block(4, BOTS, (2, 2, -2, -2)), MODEL.rate_block
    )
    from_totals = season_leaderboard(store, "test-season")
    from_results = leaderboard(
        store.reads.ratings("test-season"), store.reads.results("test-season", rated_only=True)
    )

    def flat(row: dict[str, object]) -> dict[str, object]:
        interval = row.pop("chips_per_deal_ci95")
        low, high = interval if isinstance(interval, list) else (None, None)
        return {**row, "ci_low": low, "ci_high": high}

    assert [flat(row.to_json()) for row in from_totals] == [
        pytest.approx(flat(row.to_json())) for row in from_results
    ]
    assert from_totals[0].chips_per_deal is not None  # the interval is compared, not skipped
