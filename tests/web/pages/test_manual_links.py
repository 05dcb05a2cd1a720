"""A bot's page links to the manual's "Improve your bot" (brandeln.web.manual), under the app's
root path; the tables form's link is tested in tests/web/test_manual.py."""

from __future__ import annotations

import html
import re

from starlette.testclient import TestClient

from brandeln.web.app import StorageLocation, create_app
from brandeln.web.manual import ManualLink
from tests.web.addresses import APP_BASE
from tests.web.pages.conftest import SeasonData

LINK = re.compile(r'<a href="([^"]*)" id="manual-improve-link">([^<]*)</a>')


def test_a_bots_page_links_to_improve_your_bot(season_data: SeasonData) -> None:
    app = create_app(StorageLocation(data=season_data.data), tables=False)
    bot_ids = season_data.bot_ids(season_data.season)
    assert bot_ids
    with TestClient(app, base_url=APP_BASE, root_path="/arena") as client:
        for bot_id in bot_ids.values():
            page = client.get(f"/bots/{bot_id}")
            assert page.status_code == 200
            link = LINK.search(page.text)
            assert link is not None, page.text[:2000]
            assert html.unescape(link.group(1)) == (
                f"/arena/manual/{ManualLink.IMPROVE_YOUR_BOT.value}"
            )
            assert link.group(2) == "Improve your bot"
