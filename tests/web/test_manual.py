"""The manual under /manual/ (brandeln.web.manual): the built site's files with a policy of
their own, the page that says how to build it while it is not, no way out of its folder, and
the tables form's link into it."""

from __future__ import annotations

import asyncio
import doctest
import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

import brandeln.web.manual
from brandeln.web.app import StorageLocation, create_app
from brandeln.web.guard import CONTENT_SECURITY_POLICY
from brandeln.web.manual import (
    MANUAL_CONTENT_SECURITY_POLICY,
    ManualLink,
    checkout_manual,
    links,
)
from tests.conftest import ROOT
from tests.web.addresses import (
    APP_BASE,
    ERROR_LINE,
    STATIC_ESCAPES,
    AsgiReply,
    asgi_get,
    no_file_content,
    refusal_line,
)

SECRET = "the data folder's secret, outside the manual"
# The static folder's ways out, aimed at the manual's: at a file beside the site's folder
# (secret.txt where the static ones aim at app.py), or at /etc/passwd.
MANUAL_ESCAPES = (
    *(
        target.replace(b"/static/", b"/manual/")
        .replace(b"app.py", b"secret.txt")
        .replace(b"style.css", b"index.html")
        for target in STATIC_ESCAPES
    ),
    b"/manual/outside.txt",
    b"/manual/outside/secret.txt",
)


def build_site(folder: Path) -> Path:
    """A small built manual: a home page, the improve page with its anchor, a script."""
    (folder / "bot-authors").mkdir(parents=True)
    (folder / "assets").mkdir()
    (folder / "index.html").write_text("<!doctype html><title>Home</title><p>the manual's home")
    (folder / "bot-authors" / "improve.html").write_text(
        '<!doctype html><h2 id="play-against-your-bot">Play against your bot</h2>'
    )
    (folder / "assets" / "bundle.js").write_text("var manual = 1;\n")
    return folder


@pytest.fixture
def site(tmp_path: Path) -> Path:
    (tmp_path / "secret.txt").write_text(SECRET)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "secret.txt").write_text(SECRET)
    folder = build_site(tmp_path / "site")
    # Symbolic links in the folder that lead out of it are not followed.
    (folder / "outside.txt").symlink_to(tmp_path / "secret.txt")
    (folder / "outside").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    return folder


def app_with(tmp_path: Path, manual: Path) -> Starlette:
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    return create_app(StorageLocation(data=data), manual=manual, tables=False)


@pytest.fixture
def client(tmp_path: Path, site: Path) -> Iterator[TestClient]:
    with TestClient(
        app_with(tmp_path, site), base_url=APP_BASE, raise_server_exceptions=False
    ) as opened:
        yield opened


def get(app: Starlette, target: bytes) -> AsgiReply:
    return asyncio.run(asgi_get(app, target))


def test_the_built_manual_is_served_under_manual(client: TestClient) -> None:
    home = client.get("/manual/")
    assert home.status_code == 200
    assert "the manual's home" in home.text
    page = client.get("/manual/bot-authors/improve.html")
    assert page.status_code == 200
    assert 'id="play-against-your-bot"' in page.text
    assert client.get("/manual/assets/bundle.js").text == "var manual = 1;\n"
    moved = client.get("/manual", follow_redirects=False)
    assert moved.status_code in {301, 302, 307, 308}
    assert moved.headers["location"].endswith("/manual/")


def test_the_manual_runs_its_theme_scripts_and_the_pages_keep_their_strict_policy(
    client: TestClient,
) -> None:
    # The theme's inline scripts (palette, search) run in the manual, built from the docs...
    manual = client.get("/manual/")
    assert manual.headers["content-security-policy"] == MANUAL_CONTENT_SECURITY_POLICY
    assert manual.headers["x-content-type-options"] == "nosniff"  # the guard's, still there
    # ...and nowhere else: the pages, which show the stores' text, allow only our files.
    assert client.get("/").headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    missing = client.get("/manual/no-such-page.html")
    assert missing.status_code == 404
    assert "'unsafe-inline'" not in missing.headers["content-security-policy"]


def test_a_missing_page_of_the_manual_is_the_apps_clear_404(client: TestClient) -> None:
    for target in ("/manual/no-such-page.html", "/manual/bot-authors", "/manual/bot-authors/"):
        reply = client.get(target)
        assert reply.status_code == 404, target
        assert refusal_line(reply.status_code, reply.headers["content-type"], reply.text)


@pytest.mark.parametrize("target", MANUAL_ESCAPES, ids=repr)
def test_no_way_out_of_the_manuals_folder(tmp_path: Path, site: Path, target: bytes) -> None:
    app = app_with(tmp_path, site)
    raw = get(app, target)
    assert raw.status in {400, 404}, raw.text[:300]
    refusal_line(raw.status, raw.headers["content-type"], raw.text)
    assert SECRET not in raw.text
    with TestClient(app, base_url=APP_BASE, raise_server_exceptions=False) as client:
        reply = client.get(target.decode())  # as a client library sends it
    assert reply.status_code in {400, 404}
    assert SECRET not in reply.text
    assert no_file_content(reply.text)


def test_an_unbuilt_manual_answers_how_to_build_it_and_is_served_once_built(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "site"  # not built yet
    with TestClient(
        app_with(tmp_path, folder), base_url=APP_BASE, raise_server_exceptions=False
    ) as client:
        for target in ("/manual/", "/manual/bot-authors/improve.html"):
            reply = client.get(target)
            assert reply.status_code == 404
            line = refusal_line(reply.status_code, reply.headers["content-type"], reply.text)
            assert "make docs" in line
            assert str(folder) in line
            assert "--manual" in line
            # The app's page, its links from the app's root (not from the mount's).
            assert 'href="/static/style.css"' in reply.text
        build_site(folder)  # `make docs` beside the running server: no restart
        assert client.get("/manual/").status_code == 200


def test_the_manual_of_the_checkout_is_its_site_folder() -> None:
    assert checkout_manual() == ROOT / "site"


def test_the_tables_form_links_to_play_against_your_bot(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    app = create_app(StorageLocation(data=data), manual=tmp_path / "site")
    with TestClient(app, base_url=APP_BASE, raise_server_exceptions=False) as client:
        page = client.get("/tables")
    assert page.status_code == 200
    link = re.search(r'<a href="([^"]*)" id="manual-play-link">([^<]*)</a>', page.text)
    assert link is not None, page.text[:2000]
    assert html.unescape(link.group(1)) == (
        "/manual/bot-authors/improve.html#play-against-your-bot"
    )
    assert link.group(2) == "Play against your bot"
    assert not ERROR_LINE.search(page.text)


def test_the_links_follow_the_apps_root_path() -> None:
    assert links("/arena")["improve_your_bot"] == "/arena/manual/bot-authors/improve.html"
    assert set(links("")) == {link.name.lower() for link in ManualLink}


def test_the_manual_modules_examples_hold() -> None:
    result = doctest.testmod(brandeln.web.manual)
    assert result.attempted > 0
    assert result.failed == 0
