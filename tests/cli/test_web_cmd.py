"""`brandeln web`: serves the pages of a data folder at the address it prints, on this machine
only unless told otherwise (and says so), to the names it says it answers to (a hostile site's
name pointed here, DNS rebinding, is refused); refuses what it cannot serve before listening."""

from __future__ import annotations

import os
import signal
import socket
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.testclient import TestClient
from typer.testing import CliRunner

from brandeln.cli import web_cmd
from brandeln.cli.main import app
from brandeln.cli.stop_signals import STOP_SIGNALS, SignalLatch
from brandeln.services.trusted_hosts import HostRefusal
from brandeln.web.stream_cap import MAX_STREAMS
from tests.http_requests import request_to
from tests.web.web_process import WAIT_S, raw_get, web_process

runner = CliRunner()


def listening_addresses(port: int) -> list[str]:
    """The IPv4 addresses with a socket listening on ``port`` (Linux's /proc/net/tcp)."""
    found = []
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        address, _, hex_port = local.partition(":")
        if int(hex_port, 16) == port and state == "0A":  # 0A: LISTEN
            found.append(socket.inet_ntoa(bytes.fromhex(address)[::-1]))
    return found


def test_web_prints_its_address_and_serves_the_pages_there(tmp_path: Path) -> None:
    with web_process(["--data", str(tmp_path)]) as web:
        assert str(tmp_path) in web.address_line
        assert web.port > 0  # --port 0: the port it really got
        # Listening before it printed that: no wait, no retry.
        with urllib.request.urlopen(f"{web.base}/", timeout=WAIT_S) as reply:
            page = reply.read().decode()
        assert "No seasons yet" in page
    assert not any(tmp_path.iterdir())  # read-only: it created nothing


def test_web_listens_on_this_machine_only_and_says_how_to_share_the_pages(
    tmp_path: Path,
) -> None:
    with web_process(["--data", str(tmp_path)]) as web:
        printed = "".join(web.lines)
        assert listening_addresses(web.port) == ["127.0.0.1"]
    assert "http://127.0.0.1:" in printed
    assert "listening on this machine only" in printed
    assert "--host 0.0.0.0" in printed
    assert "not loopback" not in printed


def test_a_host_other_than_loopback_is_warned_about(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nothing listens beyond loopback in a test: the socket is bound to 127.0.0.1 whatever
    # --host says, and the server is not run; what is printed is the command's own.
    listened: list[str] = []
    bind = web_cmd._listen

    def listen(host: str, port: int) -> socket.socket:
        listened.append(host)
        return bind("127.0.0.1", 0)

    monkeypatch.setattr(web_cmd, "_listen", listen)
    monkeypatch.setattr(web_cmd, "_serve", lambda app, listener, latch: listener.close())
    args = ["web", "--data", str(tmp_path), "--host", "0.0.0.0", "--port", "0"]
    result = runner.invoke(app, args, env={"BRANDELN_ADMIN_TOKEN": ""})
    assert result.exit_code == 0, result.output
    assert listened == ["0.0.0.0"]
    assert "note: 0.0.0.0 is not loopback: anyone who reaches it can read the pages" in (
        result.output
    )
    assert "this machine only" not in result.output


@pytest.mark.parametrize("signum", STOP_SIGNALS)
def test_a_stop_signal_right_after_the_line_stops_web_started_with_sigint_ignored(
    tmp_path: Path, signum: int
) -> None:
    # As CI starts the suite: in the background, SIGINT ignored in every process it starts.
    with web_process(["--data", str(tmp_path)], ignoring=(signal.SIGINT,)) as web:
        assert web.signal(signum) == 0  # at once: no wait for uvicorn to be up


@pytest.mark.parametrize("signum", STOP_SIGNALS)
def test_a_stop_signal_before_uvicorn_starts_stops_the_server_at_its_start(signum: int) -> None:
    # `brandeln web` prints "Ctrl-C stops it" before uvicorn installs its handlers; started
    # with SIGINT ignored (a background job, as CI starts one), a Ctrl-C in between was lost
    # and the server ran on (seen: a test's stop waited out its 30 s kill timeout).
    phases: list[str] = []

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        phases.append("started")
        yield
        phases.append("stopped")

    listener = web_cmd._listen("127.0.0.1", 0)
    latch = SignalLatch()
    latch.install()
    os.kill(os.getpid(), signum)  # before _serve: uvicorn's handlers are not in yet
    web_cmd._serve(Starlette(lifespan=lifespan), listener, latch)  # returns: no main loop
    assert phases == ["started", "stopped"]
    assert listener.fileno() == -1  # closed
    assert latch.received == [signum, signum]  # uvicorn raised it again, on the latch


def test_web_runs_its_apps_lifespan_which_closes_the_stores_at_shutdown(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    served: list[uvicorn.Config] = []

    def run(server: uvicorn.Server, sockets: list[socket.socket] | None = None) -> None:
        served.append(server.config)

    monkeypatch.setattr(uvicorn.Server, "run", run)
    args = ["web", "--data", str(tmp_path), "--port", "0"]
    result = runner.invoke(app, args, env={"BRANDELN_ADMIN_TOKEN": ""})
    assert result.exit_code == 0, result.output
    [config] = served
    served_app = config.app
    assert isinstance(served_app, Starlette)
    # With the lifespan off, uvicorn would never tell the app it shuts down: the stores it
    # holds open (a PostgreSQL database) would outlive it.
    assert config.lifespan == "on"
    stores = served_app.state.stores
    closed: list[bool] = []
    monkeypatch.setattr(stores, "close", lambda: closed.append(True))
    with TestClient(served_app):
        assert closed == []
    assert closed == [True]


def test_the_cap_of_live_streams_is_the_web_fronts_and_below_one_is_refused() -> None:
    assert web_cmd.DEFAULT_MAX_STREAMS == MAX_STREAMS
    result = runner.invoke(app, ["web", "--max-streams", "0"], env={"BRANDELN_ADMIN_TOKEN": ""})
    assert result.exit_code == 2
    assert "--max-streams" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--data", "x", "--db", "postgresql://h/db"], "give --data or --db, not both"),
        (["--referee", "127.0.0.1:1"], "--referee needs the admin token"),
    ],
)
def test_web_refuses_what_it_cannot_serve_before_listening(args: list[str], says: str) -> None:
    result = runner.invoke(app, ["web", *args], env={"BRANDELN_ADMIN_TOKEN": ""})
    assert result.exit_code != 0
    assert says in result.output


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux's /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:  # it ended meanwhile
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def post_table(port: int, host: str) -> tuple[int, str]:
    """The new-table form (a person and three sample bots), posted to 127.0.0.1:``port`` as a
    browser on a page of ``host`` posts it: Host and Origin both name ``host``."""
    fields = "ruleset=standard&deals=1&name=ann&seat0=person&seat1=random&seat2=random&seat3=random"
    headers = {"Origin": f"http://{host}", "Content-Type": "application/x-www-form-urlencoded"}
    return request_to(port, host, "/tables", method="POST", headers=headers, body=fields)


def test_a_rebound_name_reads_no_page_and_opens_no_table(tmp_path: Path) -> None:
    # The reproduction: a hostile domain whose DNS says 127.0.0.1.
    with web_process(["--data", str(tmp_path)]) as web:
        rebound = f"rebind.example:{web.port}"
        refused = f"{HostRefusal.FOREIGN_HOST.value}\n"
        for path in (b"/", b"/tables", b"/static/style.css", b"/tables/t_0/events"):
            reply = raw_get(web.port, path, host=rebound)
            assert (reply.status, reply.text) == (421, refused), path
        assert post_table(web.port, rebound) == (421, refused)
        for name in ("127.0.0.1", "localhost", "[::1]"):
            assert raw_get(web.port, b"/", host=f"{name}:{web.port}").status == 200, name
        assert "No table yet." in raw_get(web.port, b"/tables").text
        assert children(web.process.pid) == []  # no referee, no bot started
        printed = web.output()
    assert f"answers to 127.0.0.1, [::1], localhost at port {web.port}" in printed
    assert not (tmp_path / "tables").exists()  # where the tables' bots write


def test_off_loopback_it_answers_ip_addresses_and_exactly_the_names_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Bound to 127.0.0.1 whatever --host says, and not run (as the test above about the
    # warning): the app it would serve is asked directly.
    served: list[Starlette] = []
    bind = web_cmd._listen
    monkeypatch.setattr(web_cmd, "_listen", lambda host, port: bind("127.0.0.1", 0))

    def serve(app: Starlette, listener: socket.socket, *latch_and_more: object) -> None:
        served.append(app)
        listener.close()

    monkeypatch.setattr(web_cmd, "_serve", serve)
    args = ["web", "--data", str(tmp_path), "--host", "0.0.0.0", "--port", "0"]
    allowed = ["--allowed-host", "arena.example", "--allowed-host", "proxy.example:443"]
    result = runner.invoke(app, [*args, *allowed], env={"BRANDELN_ADMIN_TOKEN": ""})
    assert result.exit_code == 0, result.output
    assert "answers to any IP address, arena.example, localhost at port " in result.output
    [web] = served
    with TestClient(web, base_url="http://127.0.0.1:8000") as client:
        for host in ("arena.example:8000", "10.0.0.5:8000", "proxy.example:443"):
            assert client.get("/", headers={"host": host}).status_code == 200, host
        for host in ("rebind.example:8000", "arena.example:8001", "proxy.example:8000"):
            assert client.get("/", headers={"host": host}).status_code == 421, host


@pytest.mark.parametrize("entry", ["http://arena.example", "*.example", "arena.example:0"])
def test_an_allowed_host_that_is_no_name_is_refused_with_one_line(entry: str) -> None:
    result = runner.invoke(app, ["web", "--allowed-host", entry], env={"BRANDELN_ADMIN_TOKEN": ""})
    assert result.exit_code == 2
    [line] = result.output.splitlines()
    assert line.startswith("error: --allowed-host: an allowed host is NAME or NAME:PORT")
