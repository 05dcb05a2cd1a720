"""Role figures kept in the ladder store (brandeln.ladder.store.roles), on an SQLite file and on a
fresh PostgreSQL database (``db_url``); and revision 0007, which adds their table to a database of
revision 0006 without touching what it holds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy
from alembic.config import Config
from alembic.runtime.environment import EnvironmentContext
from alembic.script import ScriptDirectory

from brandeln.datastore.engine import open_engine, write_transaction
from brandeln.ladder.errors import LadderError
from brandeln.ladder.ratings.order import record_and_rate
from brandeln.ladder.ratings.trueskill_model import RatingModel
from brandeln.ladder.store import migrations
from brandeln.ladder.store.base import SIDE, database_url
from brandeln.ladder.store.database import KeptFigures, LadderStore
from tests.ladder.season_helpers import finished_block, season_config

CONFIG = season_config(("a", "b", "c", "d"), blocks=2)
OTHER = season_config(("a", "b", "c", "d"), name="other-season", blocks=2)
MODEL = RatingModel(CONFIG.rating)
SEASON = CONFIG.name


@pytest.fixture
def store(db_url: str) -> Iterator[LadderStore]:
    with LadderStore.open(db_url) as opened:
        opened.seasons.ensure_season(CONFIG, MODEL.initial())
        opened.seasons.ensure_season(OTHER, MODEL.initial())
        yield opened


def test_figures_are_kept_per_season_and_match_and_read_back(store: LadderStore) -> None:
    assert store.roles.role_figures(SEASON) == {}
    store.roles.keep_role_figures(
        SEASON, {"m_2": KeptFigures(1, '{"n":2}'), "m_1": KeptFigures(1, "{}")}
    )
    store.roles.keep_role_figures(OTHER.name, {"m_1": KeptFigures(1, '{"other":1}')})
    assert store.roles.role_figures(SEASON) == {
        "m_1": KeptFigures(1, "{}"),
        "m_2": KeptFigures(1, '{"n":2}'),
    }
    assert store.roles.role_figures(SEASON, ["m_2", "m_9"]) == {"m_2": KeptFigures(1, '{"n":2}')}
    assert store.roles.role_figures(SEASON, []) == {}
    assert store.roles.role_figures(OTHER.name) == {"m_1": KeptFigures(1, '{"other":1}')}


def test_keeping_a_match_again_replaces_its_figures(store: LadderStore) -> None:
    store.roles.keep_role_figures(SEASON, {"m_1": KeptFigures(1, "{}")})
    store.roles.keep_role_figures(SEASON, {"m_1": KeptFigures(2, '{"judged":"again"}')})
    store.roles.keep_role_figures(SEASON, {})  # nothing to keep: no transaction, no error
    assert store.roles.role_figures(SEASON) == {"m_1": KeptFigures(2, '{"judged":"again"}')}


def test_hostile_text_is_kept_as_it_came(store: LadderStore) -> None:
    # The figures are the services' JSON, match ids the referee's: stored and read back as
    # text whatever they hold (bound parameters, never SQL).
    hostile = "m_'; DROP TABLE role_figures; --\u202e<script>"
    figures = KeptFigures(1, '{"name": "\\u001b]0;owned\\u0007"}')
    store.roles.keep_role_figures(SEASON, {hostile: figures})
    assert store.roles.role_figures(SEASON, [hostile]) == {hostile: figures}


def test_an_unknown_season_is_a_ladder_error(store: LadderStore) -> None:
    with pytest.raises(LadderError, match="no-such-season"):
        store.roles.role_figures("no-such-season")
    with pytest.raises(LadderError, match="no-such-season"):
        store.roles.keep_role_figures("no-such-season", {"m_1": KeptFigures(1, "{}")})


def _migrate_to(url_text: str, revision: str) -> None:
    """Bring a new ladder database to ``revision`` (what an older brandeln left)."""
    url = database_url(url_text)
    engine = open_engine(url, side=SIDE)
    config = Config()
    config.set_main_option("script_location", str(migrations.SCRIPT_LOCATION))
    script = ScriptDirectory.from_config(config)

    def revisions(current: str, _context: object) -> object:
        return script._upgrade_revs(revision, current)

    try:
        with (
            write_transaction(engine) as connection,
            EnvironmentContext(config, script, fn=revisions, destination_rev=revision) as env,
        ):
            env.configure(connection=connection, version_table_schema=url.schema_for(SIDE))
            with env.begin_transaction():
                env.run_migrations()
        # A season recorded by that brandeln: the tables of 0006 are all this code writes here.
        with LadderStore(engine, url) as old:
            old.seasons.ensure_season(CONFIG, MODEL.initial())
            block = finished_block(0, ("a", "b", "c", "d"), (0, 0, 0, 0))
            record_and_rate(old, SEASON, *block, MODEL.rate_block)
    finally:
        engine.dispose()


def _tables(url_text: str) -> set[str]:
    url = database_url(url_text)
    engine = open_engine(url, side=SIDE)
    try:
        with engine.connect() as connection:
            names = sqlalchemy.inspect(connection).get_table_names(schema=url.schema_for(SIDE))
            return set(names)
    finally:
        engine.dispose()


def test_a_database_of_revision_0006_is_upgraded_and_keeps_its_season(db_url: str) -> None:
    _migrate_to(db_url, "0006")
    assert "role_figures" not in _tables(db_url)
    assert "seed_periods" in _tables(db_url)  # it is at 0006 indeed
    with LadderStore.open(db_url, create=False) as store:
        assert store.blocks.finished_blocks(SEASON) == {0}
        assert [row.bot for row in store.reads.ratings(SEASON)] == ["a", "b", "c", "d"]
        assert store.roles.role_figures(SEASON) == {}
        store.roles.keep_role_figures(SEASON, {"m_1": KeptFigures(1, "{}")})
    assert "role_figures" in _tables(db_url)
    with LadderStore.open(db_url, create=False) as reopened:  # a current database now
        assert reopened.roles.role_figures(SEASON) == {"m_1": KeptFigures(1, "{}")}
        assert reopened.blocks.finished_blocks(SEASON) == {0}
