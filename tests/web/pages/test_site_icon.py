"""The site's icon: served by ``brandeln web`` as an SVG, linked from every page, and carried
inside the file ``matches export --html`` writes (a data: URL, the one image its policy lets
in), so a browser's tab shows it wherever the replay is opened."""

from __future__ import annotations

import base64
import re
from xml.etree import ElementTree

from starlette.testclient import TestClient

from brandeln.web.app import StorageLocation, create_app
from brandeln.web.export_html import export_html
from brandeln.web.templating import STATIC_DIR
from tests.web.pages.conftest import SeasonData
from tests.web.table_play import match_log

ICON_LINK = re.compile(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml">')
SVG = "{http://www.w3.org/2000/svg}svg"


def test_the_icon_is_served_as_svg_and_every_page_links_it(season_data: SeasonData) -> None:
    season = season_data.season
    paths = [
        "/",
        f"/seasons/{season}",
        f"/seasons/{season}/leaderboard",
        f"/seasons/{season}/ratings",
        f"/bots/{season_data.bot_ids(season)['random']}",
        f"/matches/{season_data.match_ids(season)[0]}",
        "/tables",
        "/matches/m_none",  # an error page
    ]
    app = create_app(StorageLocation(data=season_data.data))
    with TestClient(app, base_url="http://127.0.0.1") as client:  # a name the app answers to
        links = {path: ICON_LINK.findall(client.get(path).text) for path in paths}
        assert links == {path: ["/static/favicon.svg"] for path in paths}
        icon = client.get("/static/favicon.svg")
    assert icon.status_code == 200
    assert icon.headers["content-type"].startswith("image/svg+xml")
    assert ElementTree.fromstring(icon.content).tag == SVG


def test_the_exported_replay_carries_the_icon_inline(season_data: SeasonData) -> None:
    match_id = season_data.match_ids(season_data.season)[0]
    page = export_html(match_log(season_data.data, match_id))
    [link] = ICON_LINK.findall(page)
    prefix, _, encoded = link.partition(",")
    assert prefix == "data:image/svg+xml;base64"
    assert base64.b64decode(encoded) == (STATIC_DIR / "favicon.svg").read_bytes()
