"""The ladder database: schema, seasons, one transaction per block, in-order ratings, errors."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ladder.errors import SeasonMismatchError, StorageError, UnknownSeasonError
from ladder.rating_order import record_and_rate
from ladder.ratings import Rating, RatingModel
from ladder.storage import (
    _SCHEMA,
    SCHEMA_VERSION,
    LadderStore,
    RatedBlock,
    SeasonStatus,
    token_hash,
)
from tests.ladder.season_helpers import finished_block, season_config

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
        assert reopened.season_names() == []


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


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ladder.db"
    with LadderStore.open(path):
        pass
    raw = sqlite3.connect(path)
    raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    raw.commit()
    raw.close()
    with pytest.raises(StorageError, match="newer than this program"):
        LadderStore.open(path)


def test_a_schema_1_database_is_migrated_and_its_seasons_get_a_status(tmp_path: Path) -> None:
    path = tmp_path / "ladder.db"
    raw = sqlite3.connect(path)
    # The schema as it was at version 1: seasons without status columns, plaintext tokens.
    schema_1 = "\n".join(line for line in _SCHEMA.splitlines() if "status" not in line)
    schema_1 = schema_1.replace("token_hash", "token")
    raw.executescript(
        schema_1.replace("updated_at     INTEGER NOT NULL,", "updated_at INTEGER NOT NULL")
    )
    raw.execute("PRAGMA user_version = 1")
    for season_id, planned in ((1, 1), (2, 3)):
        raw.execute(
            "INSERT INTO seasons (season_id, name, settings_json, ruleset, players,"
            " blocks_planned, created_at, updated_at) VALUES (?, ?, '{}', 'standard', 4, ?, 0, 0)",
            (season_id, f"s{season_id}", planned),
        )
        raw.execute("INSERT INTO blocks VALUES (?, 0, '1', '[]', 0)", (season_id,))
    raw.commit()
    raw.close()
    with LadderStore.open(path) as store:
        assert store.season("s1").status == SeasonStatus.FINISHED  # 1 of 1 blocks
        assert store.season("s2").status == SeasonStatus.RUNNING  # 1 of 3
        store.set_season_status("s2", SeasonStatus.FAILED, "bot 'b' exited")
    with LadderStore.open(path) as reopened:
        assert reopened.season("s2").status_detail == "bot 'b' exited"
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
    raw.close()


def test_ensure_season_creates_it_with_initial_ratings(store: LadderStore) -> None:
    info = store.ensure_season(CONFIG, MODEL.initial())
    assert (info.name, info.players, info.blocks_planned, info.blocks_finished) == (
        "test-season",
        4,
        4,
        0,
    )
    assert [(row.bot, row.rating, row.blocks) for row in store.ratings("test-season")] == [
        (bot, MODEL.initial(), 0) for bot in "abcde"
    ]
    identities = store.bot_identities("test-season")
    assert identities["a"].kind == "command"
    assert identities["a"].bot_id is None


def test_ensure_season_accepts_more_blocks_and_other_timing(store: LadderStore) -> None:
    store.ensure_season(CONFIG, MODEL.initial())
    longer = season_config(
        ("a", "b", "c", "d", "e"), blocks=9, concurrency=1, extra="[time_control]\nmove_ms = 5"
    )
    assert store.ensure_season(longer, MODEL.initial()).blocks_planned == 9


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
    store.ensure_season(CONFIG, MODEL.initial())
    with pytest.raises(SeasonMismatchError, match=f"changed.*: {names}"):
        store.ensure_season(changed, MODEL.initial())  # type: ignore[arg-type]


def test_unknown_seasons_name_the_known_ones(store: LadderStore) -> None:
    store.ensure_season(CONFIG, MODEL.initial())
    with pytest.raises(UnknownSeasonError, match="no season named 'x'; seasons: test-season"):
        store.season("x")


def test_a_block_is_recorded_with_matches_results_and_ratings(store: LadderStore) -> None:
    store.ensure_season(CONFIG, MODEL.initial())
    plan, outcomes, results = finished_block(0, BOTS, (6, -2, -2, -2))
    assert record_and_rate(store, "test-season", plan, outcomes, results, MODEL.rate_block) == [0]
    assert store.finished_blocks("test-season") == {0}
    assert [m.match_id for m in store.matches("test-season")] == ["b0r0", "b0r1", "b0r2", "b0r3"]
    recorded = {r.bot: r for _, r in store.results("test-season")}
    assert recorded == results
    expected = MODEL.rate_block({}, {bot: r.rank for bot, r in results.items()})
    ratings = {row.bot: row for row in store.ratings("test-season")}
    for bot in BOTS:
        assert ratings[bot].rating == expected[bot]
        assert ratings[bot].blocks == 1
    assert ratings["e"].rating == MODEL.initial()
    assert ratings["e"].blocks == 0
    assert [(index, bot) for index, bot, _ in store.rating_history("test-season")] == [
        (0, b) for b in BOTS
    ]


def test_recording_a_block_twice_is_refused_and_changes_nothing(store: LadderStore) -> None:
    store.ensure_season(CONFIG, MODEL.initial())
    plan, outcomes, results = finished_block(0, BOTS, (6, -2, -2, -2))
    record_and_rate(store, "test-season", plan, outcomes, results, MODEL.rate_block)
    before = (
        store.ratings("test-season"),
        store.results("test-season"),
        store.matches("test-season"),
    )
    with pytest.raises(StorageError, match="block 0 cannot be recorded"):
        record_and_rate(store, "test-season", plan, outcomes, results, MODEL.rate_block)
    assert before == (
        store.ratings("test-season"),
        store.results("test-season"),
        store.matches("test-season"),
    )


def test_a_failure_inside_the_transaction_leaves_no_trace(store: LadderStore) -> None:
    store.ensure_season(CONFIG, MODEL.initial())
    plan, outcomes, results = finished_block(0, BOTS, (6, -2, -2, -2))

    def broken_rating(before: object, ranking: object) -> dict[str, Rating]:
        raise RuntimeError("trueskill exploded")

    with pytest.raises(RuntimeError, match="exploded"):
        record_and_rate(store, "test-season", plan, outcomes, results, broken_rating)
    assert store.finished_blocks("test-season") == set()
    assert store.matches("test-season") == []
    assert store.results("test-season") == []
    # and the block can then be recorded normally
    assert record_and_rate(store, "test-season", plan, outcomes, results, MODEL.rate_block) == [0]


def test_ratings_are_applied_in_block_order_whatever_the_finishing_order(tmp_path: Path) -> None:
    blocks = [
        finished_block(0, ("a", "b", "c", "d"), (6, -2, -2, -2)),
        finished_block(1, ("e", "a", "b", "c"), (3, 3, -3, -3)),
        finished_block(2, ("d", "e", "a", "b"), (0, 0, 0, 0)),
    ]
    histories = []
    for order in ([0, 1, 2], [2, 0, 1], [1, 2, 0]):
        with LadderStore.open(tmp_path / f"{order}.db") as store:
            store.ensure_season(CONFIG, MODEL.initial())
            rated_now = [
                record_and_rate(store, "test-season", *blocks[index], MODEL.rate_block)
                for index in order
            ]
            if order == [2, 0, 1]:
                assert rated_now == [[], [0], [1, 2]]
                # block 2 waited for blocks 0 and 1: its results are in, its rating was not
            histories.append((store.ratings("test-season"), store.rating_history("test-season")))
    assert histories[0] == histories[1] == histories[2]


def test_the_store_keeps_the_ratings_it_is_given_and_refuses_a_stale_rating_position(
    store: LadderStore,
) -> None:
    store.ensure_season(CONFIG, MODEL.initial())
    given = RatedBlock(0, {"a": Rating(30.0, 2.0)})
    store.record_block(
        "test-season", *finished_block(0, BOTS, (6, -2, -2, -2)), [given], next_to_rate=0
    )
    assert {row.bot: row.rating for row in store.ratings("test-season")}["a"] == Rating(30.0, 2.0)
    assert store.next_to_rate("test-season") == 1
    with pytest.raises(StorageError, match="ratings stand at block 1, not 0"):
        store.record_block(
            "test-season", *finished_block(1, BOTS, (0, 0, 0, 0)), [], next_to_rate=0
        )
    assert store.finished_blocks("test-season") == {0}


def test_results_rated_only_leaves_out_blocks_waiting_for_an_earlier_one(
    store: LadderStore,
) -> None:
    store.ensure_season(CONFIG, MODEL.initial())
    record_and_rate(
        store,
        "test-season",
        *finished_block(1, ("e", "a", "b", "c"), (0, 0, 0, 0)),
        MODEL.rate_block,
    )
    assert store.results("test-season", rated_only=True) == []
    assert len(store.results("test-season")) == 4


def test_bot_identities_are_saved_and_read_back(store: LadderStore) -> None:
    store.ensure_season(CONFIG, MODEL.initial())
    store.save_bot_identity(
        "test-season", "a", bot_id="id-a", token_hash=token_hash("tok-a"), referee_name="a@s"
    )
    identity = store.bot_identities("test-season")["a"]
    assert (identity.bot_id, identity.token_hash, identity.referee_name) == (
        "id-a",
        token_hash("tok-a"),
        "a@s",
    )
    with pytest.raises(StorageError, match="has no bot 'zz'"):
        store.save_bot_identity("test-season", "zz", bot_id="1", token_hash="2", referee_name="3")


def test_latest_season_is_the_one_updated_last(store: LadderStore) -> None:
    assert store.latest_season() is None
    store.ensure_season(CONFIG, MODEL.initial())
    other = season_config(name="other")
    store.ensure_season(other, MODEL.initial())
    record_and_rate(store, "test-season", *finished_block(0, BOTS, (0, 0, 0, 0)), MODEL.rate_block)
    latest = store.latest_season()
    assert latest is not None
    assert latest.name == "test-season"
    assert store.season_names() == ["test-season", "other"]


def test_data_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "ladder.db"
    with LadderStore.open(path) as store:
        store.ensure_season(CONFIG, MODEL.initial())
        record_and_rate(
            store, "test-season", *finished_block(0, BOTS, (6, -2, -2, -2)), MODEL.rate_block
        )
        ratings = store.ratings("test-season")
    with LadderStore.open(path, create=False) as store:
        assert store.ratings("test-season") == ratings
        assert store.season("test-season").blocks_finished == 1


# season_bots as schema version 1 had it: each command bot's token in plaintext.
V1_SEASON_BOTS = """
CREATE TABLE season_bots (
    season_id    INTEGER NOT NULL REFERENCES seasons(season_id),
    bot          TEXT NOT NULL,     -- the name in the season file
    kind         TEXT NOT NULL CHECK (kind IN ('command', 'external')),
    bot_id       TEXT,              -- the referee's id; NULL until a command bot is registered
    token        TEXT,              -- a command bot's token, handed to its process
    referee_name TEXT,              -- the name it was registered under at the referee
    PRIMARY KEY (season_id, bot)
);
"""


def _version_1_database(path: Path, tokens: dict[str, str]) -> None:
    """A ladder database as version 1 left it: a season whose command bots' tokens are in
    ``season_bots.token``, in the WAL and the file."""
    with LadderStore.open(path) as store:
        store.ensure_season(CONFIG, MODEL.initial())
        record_and_rate(
            store, "test-season", *finished_block(0, BOTS, (3, -1, -1, -1)), MODEL.rate_block
        )
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("PRAGMA journal_mode=WAL")
    raw.execute("PRAGMA wal_autocheckpoint=0")  # keep the tokens in the WAL too
    raw.execute("DROP TABLE season_bots")
    raw.executescript(V1_SEASON_BOTS)
    for column in ("status", "status_detail"):  # version 2 added them
        raw.execute(f"ALTER TABLE seasons DROP COLUMN {column}")
    for bot, token in tokens.items():
        raw.execute(
            "INSERT INTO season_bots VALUES (1, ?, 'command', ?, ?, ?)",
            (bot, f"id-{bot}", token, f"{bot}@test-season"),
        )
    raw.execute("INSERT INTO season_bots VALUES (1, 'e', 'external', 'bot_e', NULL, NULL)")
    raw.execute("PRAGMA user_version = 1")
    raw.close()


def test_a_version_1_database_keeps_working_and_loses_its_plaintext_tokens(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ladder.db"
    tokens = {bot: f"plaintext-token-of-{bot}-0123456789abcdef" for bot in BOTS}
    _version_1_database(path, tokens)

    def files() -> list[Path]:
        return sorted(tmp_path.glob("ladder.db*"))

    assert any(tokens["a"].encode() in f.read_bytes() for f in files())  # the premise

    with LadderStore.open(path, create=False) as store:
        identities = store.bot_identities("test-season")
        assert store.finished_blocks("test-season") == {0}
        assert store.ratings("test-season")[0].blocks == 1
    assert {bot: (i.bot_id, i.referee_name, i.token_hash) for bot, i in identities.items()} == {
        **{bot: (f"id-{bot}", f"{bot}@test-season", token_hash(tokens[bot])) for bot in BOTS},
        "e": ("bot_e", None, None),
    }
    for file in files():
        data = file.read_bytes()
        assert not [bot for bot, token in tokens.items() if token.encode() in data], file
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
    columns = [row[1] for row in raw.execute("PRAGMA table_info(season_bots)")]
    assert "token" not in columns
    raw.close()


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
        assert store.season_names() == []
