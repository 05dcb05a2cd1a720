"""A PostgreSQL password given in ``--db`` never appears in any output, log, error or record.

One role that must give its password (scram-sha-256), one database it owns, and every command
that takes ``--db`` run with the password in the URL: a season, the read commands, the copy
tool, ``serve`` and ``web`` (their banners, their pages, their logs), and the same URL gone
wrong (a wrong password, a missing database, a server that is not there, a bad port). The
password is searched for in everything they print, every file they write and every text
column of both stores.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
from typer.testing import CliRunner

from brandeln.cli.main import app
from tests import pg_server
from tests.conftest import PROJECT_PYTHONPATH
from tests.ladder.test_season_e2e import random_bots_season

PASSWORD = "Zq9-pw-never-shown"
ROLE = "pwshown"
runner = CliRunner()


@dataclass(frozen=True)
class Secret:
    server: pg_server.PostgresServer
    url: str  # with the password

    def at(self, *, password: str = PASSWORD, port: int | None = None, db: str = "") -> str:
        port = self.server.port if port is None else port
        return f"postgresql://{ROLE}:{password}@127.0.0.1:{port}/{db or self.database}"

    @property
    def database(self) -> str:
        return self.url.rsplit("/", 1)[1]


@pytest.fixture(scope="module")
def secret(postgres: pg_server.PostgresServer) -> Iterator[Secret]:
    pg_server.password_role(postgres, ROLE, PASSWORD)
    name = f"pwshown_{os.getpid()}"
    with psycopg.connect(
        host=postgres.host,
        port=postgres.port,
        user=postgres.user,
        dbname="postgres",
        autocommit=True,
    ) as admin:
        admin.execute(f'CREATE DATABASE "{name}" OWNER {ROLE}')
    try:
        yield Secret(postgres, f"postgresql://{ROLE}:{PASSWORD}@127.0.0.1:{postgres.port}/{name}")
    finally:
        with psycopg.connect(
            host=postgres.host,
            port=postgres.port,
            user=postgres.user,
            dbname="postgres",
            autocommit=True,
        ) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _clean(text: str, what: str) -> None:
    assert PASSWORD not in text, f"{what} shows the password:\n{text}"


def _cli(*args: str) -> str:
    result = runner.invoke(app, list(args))
    _clean(result.output, " ".join(args[:2]))  # stdout and stderr, as the terminal shows them
    return result.output


def _files_hold_no_password(folder: Path) -> None:
    for path in folder.rglob("*"):
        if path.is_file():
            _clean(path.read_bytes().decode("utf-8", "replace"), str(path))


def _records_hold_no_password(secret: Secret) -> None:
    """Every text column of every table of both stores' schemas."""
    with psycopg.connect(secret.url) as connection:
        columns = connection.execute(
            "SELECT table_schema, table_name, column_name FROM information_schema.columns "
            "WHERE table_schema IN ('ladder', 'referee') "
            "AND data_type IN ('text', 'character varying', 'bytea', 'json', 'jsonb')"
        ).fetchall()
        assert columns, "the stores' tables were not found"
        for schema, table, column in columns:
            found = connection.execute(
                f'SELECT count(*) FROM "{schema}"."{table}" '
                f'WHERE position(%s in CAST("{column}" AS text)) > 0',
                (PASSWORD,),
            ).fetchone()
            assert found == (0,), f"{schema}.{table}.{column} holds the password"


def _run_until_line(args: list[str], pattern: str, cwd: Path) -> tuple[str, re.Match[str]]:
    """Start ``brandeln ARGS``, read its output up to a line matching ``pattern``; the
    process keeps running (the caller stops it with :func:`_stop`)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "brandeln.cli", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": PROJECT_PYTHONPATH, "COLUMNS": "200"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    _running.append(process)
    assert process.stdout is not None
    seen = []
    for line in process.stdout:
        seen.append(line)
        if found := re.search(pattern, line):
            return "".join(seen), found
    raise AssertionError(f"ended before {pattern!r}:\n{''.join(seen)}")


_running: list[subprocess.Popen[str]] = []


def _stop(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGTERM)
    output, _ = process.communicate(timeout=60)
    return output


@pytest.fixture(autouse=True)
def _no_process_left() -> Iterator[None]:
    yield
    for process in _running:
        if process.poll() is None:
            process.kill()
            process.wait()
    _running.clear()


def test_a_season_and_every_read_command_on_a_password_url_never_show_it(
    secret: Secret, tmp_path: Path
) -> None:
    season = tmp_path / "pw.toml"
    season.write_text(random_bots_season("pw", blocks=1, deals=4))
    data = tmp_path / "data"
    ran = subprocess.run(
        [
            sys.executable,
            "-m",
            "brandeln.cli",
            "season",
            "run",
            str(season),
            "--data",
            str(data),
            "--db",
            secret.url,
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": PROJECT_PYTHONPATH, "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    _clean(ran.stdout + ran.stderr, "season run")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    match_id = re.findall(r"\bm_[0-9a-f]{16}\b", ran.stdout)[-1]
    for args in (
        ["ratings", "--db", secret.url],
        ["season", "list", "--db", secret.url],
        ["matches", "list", "--db", secret.url],
        ["matches", "show", match_id, "--db", secret.url],
        ["matches", "verify", match_id, "--db", secret.url],
        ["db", "copy", secret.url, str(tmp_path / "copy")],
    ):
        assert _cli(*args, *([] if args[0] == "db" else ["--data", str(data)]))
    _files_hold_no_password(tmp_path)
    _records_hold_no_password(secret)


def test_serve_and_web_on_a_password_url_never_show_it(secret: Secret, tmp_path: Path) -> None:
    banner, _ = _run_until_line(
        ["serve", "--db", secret.url, "--port", "0"],
        r"listening on",
        tmp_path,
    )
    output = banner + _stop(_running[-1])
    _clean(output, "serve")
    banner, found = _run_until_line(
        ["web", "--db", secret.url, "--port", "0"], r"(http://127\.0\.0\.1:\d+/)", tmp_path
    )
    pages = []
    for path in ("", "matches/m_0000000000000000", "seasons/nope", "bots/nope"):
        try:
            with urllib.request.urlopen(found.group(1) + path, timeout=30) as reply:
                pages.append(reply.read().decode())
        except urllib.error.HTTPError as error:
            pages.append(error.read().decode())
    _clean(banner + "".join(pages) + _stop(_running[-1]), "web")
    _files_hold_no_password(tmp_path)


@pytest.mark.parametrize(
    "wrong",
    ["password", "database", "port", "unreachable", "bad port"],
)
def test_a_password_url_gone_wrong_is_one_line_without_the_password(
    secret: Secret, tmp_path: Path, wrong: str
) -> None:
    url = {
        "password": secret.at(password=PASSWORD + "x"),
        "database": secret.at(db="no_such_db"),
        "port": secret.at(port=pg_server.free_port()),
        "unreachable": f"postgresql://{ROLE}:{PASSWORD}@192.0.2.1:5432/db?connect_timeout=1",
        "bad port": f"postgresql://{ROLE}:{PASSWORD}@127.0.0.1:notaport/db",
    }[wrong]
    for args in (
        ["ratings", "--db", url],
        ["matches", "list", "--db", url],
        ["season", "list", "--db", url],
        ["serve", "--db", url, "--port", "0"],
    ):
        result = runner.invoke(app, args)
        output = result.output  # stdout and stderr, as the terminal shows them
        _clean(output, f"{args[0]} with a wrong {wrong}")
        assert result.exit_code in (1, 2), output
        assert "Traceback" not in output
        errors = [line for line in output.splitlines() if line.startswith("error:")]
        assert len(errors) == 1, output
