"""The guard's check of where a request goes and where it comes from (brandeln.web.guard over
brandeln.services.trusted_hosts), in-process: a page on a hostile domain that resolves to this
machine (DNS rebinding) gets a 421 with one line for every page, file, stream and post, before
routing; the loopback names at the server's port, and the names the operator allows, are
served; a post from another origin is a 403.

The whole command, as the issue reproduced it (a real `brandeln web`, no table opened, no bot
started): tests/cli/test_web_cmd.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from httpx2 import Response
from starlette.applications import Starlette
from starlette.testclient import TestClient

from brandeln.services.trusted_hosts import HostRefusal, TrustedHosts
from brandeln.web.app import StorageLocation, create_app
from brandeln.web.guard import CONTENT_SECURITY_POLICY
from tests.web.addresses import asgi_get

PORT = 8000
BASE = f"http://127.0.0.1:{PORT}"  # the port a request is taken on: the scope's server
REBOUND = f"rebind.example:{PORT}"
READS = [
    "/",
    "/tables",
    "/static/style.css",
    "/seasons/s",
    "/tables/t_0/events",
    "/live/m_0/events",
]
POSTS = ["/tables", "/tables/t_0/seats", "/tables/t_0/act", "/ladders/main/challenges"]


@pytest.fixture
def app(tmp_path: Path) -> Starlette:
    return create_app(StorageLocation(data=tmp_path), allow_challenges=True)


@pytest.fixture
def client(app: Starlette) -> Iterator[TestClient]:
    with TestClient(app, base_url=BASE, raise_server_exceptions=False) as opened:
        yield opened


def assert_refused(reply: Response, refusal: HostRefusal) -> None:
    assert reply.status_code == refusal.status, reply.text[:300]
    assert reply.text == f"{refusal.value}\n"
    assert reply.headers["content-type"].startswith("text/plain")
    assert reply.headers["content-security-policy"] == CONTENT_SECURITY_POLICY


@pytest.mark.parametrize("path", READS)
def test_a_rebound_name_gets_no_page_file_or_stream(client: TestClient, path: str) -> None:
    assert_refused(client.get(path, headers={"host": REBOUND}), HostRefusal.FOREIGN_HOST)


@pytest.mark.parametrize("path", POSTS)
def test_a_post_under_a_rebound_name_is_refused_and_opens_no_table(
    app: Starlette, client: TestClient, tmp_path: Path, path: str
) -> None:
    # The issue's: Host and Origin both the hostile name, as the browser sends them there.
    fields = {"ruleset": "standard", "deals": "1", "name": "ann", "seat0": "person"}
    fields.update({f"seat{n}": "random" for n in (1, 2, 3)})
    headers = {"host": REBOUND, "origin": f"http://{REBOUND}"}
    reply = client.post(path, data=fields, headers=headers, follow_redirects=False)
    assert_refused(reply, HostRefusal.FOREIGN_HOST)
    assert app.state.tables.listed() == []
    assert not (tmp_path / "tables").exists()  # where the tables' bots would write


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost", "[::1]"])
def test_the_loopback_names_at_the_port_are_served(client: TestClient, name: str) -> None:
    for path in ("/", "/tables", "/static/style.css"):
        assert client.get(path, headers={"host": f"{name}:{PORT}"}).status_code == 200, path
    assert_refused(
        client.get("/", headers={"host": f"{name}:{PORT + 1}"}), HostRefusal.FOREIGN_HOST
    )


@pytest.mark.parametrize(
    ("hosts", "refusal"),
    [
        ([], HostRefusal.NO_HOST),
        (["localhost:8000", "localhost:8000"], HostRefusal.BAD_HOST),
        (["localhost:8000:1"], HostRefusal.BAD_HOST),
    ],
)
def test_no_host_or_a_malformed_one_is_a_bad_request(
    app: Starlette, hosts: list[str], refusal: HostRefusal
) -> None:
    # The TestClient always sends one Host: the app is called as a server would call it.
    raw = [(b"host", host.encode()) for host in hosts]
    reply = asyncio.run(asgi_get(app, b"/", headers=raw, host=None))
    assert reply.status == refusal.status
    assert reply.text == f"{refusal.value}\n"


def test_a_post_from_another_origin_is_refused_before_its_form(client: TestClient) -> None:
    fields = {"ruleset": "standard", "deals": "1", "name": "ann"}
    for origin in ("http://rebind.example:8000", "null", "http://127.0.0.1:8001"):
        reply = client.post("/tables", data=fields, headers={"origin": origin})
        assert_refused(reply, HostRefusal.FOREIGN_ORIGIN)
    assert_refused(client.post("/tables", data=fields), HostRefusal.FOREIGN_ORIGIN)


def test_off_loopback_the_names_allowed_and_ip_addresses_are_served(tmp_path: Path) -> None:
    # As `brandeln web --host 0.0.0.0 --allowed-host arena.example` makes it.
    trusted = TrustedHosts.for_bind("0.0.0.0", ["arena.example"])
    app = create_app(StorageLocation(data=tmp_path), trusted_hosts=trusted)
    with TestClient(app, base_url=BASE) as client:
        for host in (f"arena.example:{PORT}", f"10.0.0.5:{PORT}", f"localhost:{PORT}"):
            assert client.get("/", headers={"host": host}).status_code == 200, host
        for host in (REBOUND, f"arena.example:{PORT + 1}", f"0.0.0.0:{PORT}"):
            assert_refused(client.get("/", headers={"host": host}), HostRefusal.FOREIGN_HOST)
