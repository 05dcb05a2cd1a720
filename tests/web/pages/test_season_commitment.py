"""A season's page shows its commitment (brandeln.ladder.season.commitment): the digest and the
schedule from the start, the seed once it may be read (public from the start, or revealed), and "not
revealed yet" while a secret seed is; hostile season names stay text in it."""

from __future__ import annotations

import html
import re
import sqlite3
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from brandeln.ladder.season.commitment import matches_commitment, public_seed
from brandeln.ladder.store.database import LadderStore
from brandeln.web.app import StorageLocation, create_app
from tests.web.addresses import APP_BASE
from tests.web.hostile import assert_inert
from tests.web.pages.conftest import HostileData, SeasonData


def client_of(data: Path) -> TestClient:
    app = create_app(StorageLocation(data=data))
    return TestClient(app, base_url=APP_BASE, raise_server_exceptions=False)


def _code(page: str, element: str) -> str | None:
    found = re.search(rf'<code id="{element}">([^<]*)</code>', page)
    return None if found is None else html.unescape(found.group(1))


def _page(data: Path, season: str) -> str:
    with client_of(data) as client:
        page = client.get(f"/seasons/{season}")
    assert page.status_code == 200
    return page.text


def test_a_season_with_a_public_seed_shows_its_commitment_and_seed(
    season_data: SeasonData,
) -> None:
    page = _page(season_data.data, season_data.season)
    with LadderStore.open(season_data.data / "ladder.db", create=False) as store:
        commitment = store.commitments.season_commitment(season_data.season)
    assert commitment is not None
    assert _code(page, "commitment-digest") == commitment.digest
    assert _code(page, "commitment-seed") == public_seed(11)  # the season file's seed
    schedule = _code(page, "commitment-schedule")
    assert schedule == commitment.schedule
    assert matches_commitment(commitment.digest, public_seed(11), schedule)
    assert "seed public from the start" in page
    assert f"brandeln season verify {season_data.season}" in page


@pytest.fixture
def secret(data_copy: SeasonData) -> SeasonData:
    """The copy's season as if its seed had been drawn secret (a file without ``seed``)."""
    with sqlite3.connect(data_copy.data / "ladder.db") as db:
        db.execute(
            "UPDATE seasons SET seed_public = 0, seed_revealed_at = NULL, blocks_planned = 6, "
            "status = 'running' WHERE name = ?",
            (data_copy.season,),
        )
    db.close()
    return data_copy


def test_a_secret_seed_is_not_shown_until_it_is_revealed(secret: SeasonData) -> None:
    page = _page(secret.data, secret.season)
    with LadderStore.open(secret.data / "ladder.db", create=False) as store:
        commitment = store.commitments.season_commitment(secret.season)
    assert commitment is not None
    assert _code(page, "commitment-digest") == commitment.digest
    assert _code(page, "commitment-seed") is None
    assert "not revealed yet" in page
    assert public_seed(11) not in page  # the stored seed stays out of the page

    # Its last block recorded, the runner reveals it: the same commitment, and now the seed.
    with sqlite3.connect(secret.data / "ladder.db") as db:
        db.execute(
            "UPDATE seasons SET seed_revealed_at = 1, blocks_planned = blocks_recorded, "
            "status = 'finished' WHERE name = ?",
            (secret.season,),
        )
    db.close()
    page = _page(secret.data, secret.season)
    assert _code(page, "commitment-digest") == commitment.digest
    assert _code(page, "commitment-seed") == public_seed(11)
    assert "not revealed yet" not in page
    assert "seed revealed" in page


def test_hostile_season_names_stay_text_in_the_commitment(hostile_data: HostileData) -> None:
    with client_of(hostile_data.data) as client:
        for season in hostile_data.seasons:
            if "/" in season:  # a "/" cannot be in a path
                continue
            path = "/seasons/" + re.sub(r"[^A-Za-z0-9]", lambda m: f"%{ord(m[0]):02X}", season)
            page = client.get(path)
            assert page.status_code == 200, path
            assert 'id="commitment-digest"' in page.text
            assert_inert(page.text, shown=(season,), where=path)
