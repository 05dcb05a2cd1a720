"""With --referee, a match page asks the running referee (Admin.GetMatch) for a match the
local files do not hold: a real referee over loopback gRPC, serving a played season's data."""

from __future__ import annotations

import asyncio
import html
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.web.app import StorageLocation, create_app
from brandeln.web.data import DataError
from tests.web.addresses import APP_BASE
from tests.web.pages.conftest import SeasonData


@contextmanager
def running_referee(data: Path) -> Iterator[EmbeddedReferee]:
    """An embedded referee on a loop of its own thread (the test client has another)."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="test-referee", daemon=True)
    thread.start()
    referee = EmbeddedReferee(data)
    try:
        asyncio.run_coroutine_threadsafe(referee.start(), loop).result(timeout=30)
        try:
            yield referee
        finally:
            asyncio.run_coroutine_threadsafe(referee.stop(), loop).result(timeout=30)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()


def test_a_match_only_the_running_referee_holds_is_read_through_admin(
    data_copy: SeasonData, tmp_path: Path
) -> None:
    every = data_copy.match_ids(data_copy.season) + data_copy.match_ids(data_copy.hostile_season)
    match_id = every[0]
    prefix = next(
        match_id[:n]
        for n in range(3, len(match_id))
        if [m for m in every if m.startswith(match_id[:n])] == [match_id]
    )
    nothing_local = tmp_path / "empty"
    nothing_local.mkdir()
    with running_referee(data_copy.data / "embedded") as referee:
        app = create_app(
            StorageLocation(data=nothing_local),
            referee=referee.address,
            admin_token=referee.admin_token,
        )
        with TestClient(app, base_url=APP_BASE, raise_server_exceptions=False) as client:
            page = client.get(f"/matches/{match_id}")
            unknown = client.get("/matches/m_0000000000000000")
            # The CLI's rule at the referee too: a unique prefix names the match, a shared
            # one is a 400 naming the matches that start with it.
            by_prefix = client.get(f"/matches/{prefix}")
            ambiguous = client.get("/matches/m_")
    assert page.status_code == 200
    assert by_prefix.status_code == 200
    assert by_prefix.text == page.text
    assert ambiguous.status_code == 400
    assert "match id prefix 'm_' is ambiguous: " in html.unescape(ambiguous.text)
    assert page.text.count('<tr id="deal-') == 4
    assert f"random@{data_copy.season}" in page.text
    assert 'id="log-error"' not in page.text
    assert unknown.status_code == 404
    assert f"no match with id 'm_0000000000000000' (nor at {referee.address})" in html.unescape(
        unknown.text
    )


def test_a_referee_without_its_admin_token_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="admin token"):
        create_app(StorageLocation(data=tmp_path), referee="127.0.0.1:1")
