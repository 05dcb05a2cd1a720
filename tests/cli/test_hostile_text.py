"""Bot-supplied text reaches the operator's terminal inert: no raw control or format character,
no rich markup taking effect, no traceback. The names here are what a database written by an
older referee (which refused only newlines and tabs) or a hand-edited log may still hold."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from brandeln.cli.main import app
from tests.cli.conftest import MatchCopy
from tests.ladder.season_helpers import season_text

runner = CliRunner()

OSC = "mal\x1b]0;owned\x07lory"
CSI = "red\x1b[31m\x1b[2J"
BIDI = "bidi\u202eroc.exe"
MARKUP = "[/bold]"
HOSTILE = [OSC, CSI, BIDI, MARKUP, "del\x7f", "c1\x9b2J"]
RAW = ("\x1b", "\x07", "\x7f", "\x9b", "\u202e")


def assert_inert(result: Result) -> None:
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    for char in RAW:
        assert char not in result.output, (char, result.output)


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args))


# --- bots ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["[/x]y", "[/bold]", "[red]x", "[link=file:///etc]y"])
def test_bots_add_with_markup_in_the_name_registers_it_and_prints_the_token(
    tmp_path: Path, name: str
) -> None:
    result = invoke("bots", "add", name, "--data", str(tmp_path))
    assert_inert(result)
    assert result.exit_code == 0, result.output
    token = re.search(r"token \(shown once\): (\S+)", result.output)
    assert token is not None, result.output
    assert len(token.group(1)) >= 40
    assert f"registered {name} as bot_" in result.output


@pytest.mark.parametrize("name", [OSC, CSI, BIDI, "nul\x00", "del\x7f", "c1\x9b"])
def test_bots_add_refuses_control_characters_on_one_line(tmp_path: Path, name: str) -> None:
    result = invoke("bots", "add", name, "--data", str(tmp_path))
    assert_inert(result)
    assert result.exit_code == 1
    (line,) = result.output.strip().splitlines()
    assert line.startswith("error: a bot name may not contain control or format characters")
    listed = invoke("bots", "list", "--data", str(tmp_path), "--json")
    assert json.loads(listed.output) == []


def _insert_bots(db_path: Path, names: list[str]) -> None:
    """Bots as an older referee could have registered them."""
    with sqlite3.connect(db_path) as db:
        db.executemany(
            "INSERT INTO bots(bot_id, name, token_hash, created_at) VALUES(?,?,?,0)",
            [(f"bot_old{n}", name, f"hash{n}") for n, name in enumerate(names)],
        )
    db.close()


def test_bots_list_shows_hostile_names_escaped(tmp_path: Path) -> None:
    assert invoke("bots", "add", "plain", "--data", str(tmp_path)).exit_code == 0
    _insert_bots(tmp_path / "referee.db", HOSTILE)
    table = invoke("bots", "list", "--data", str(tmp_path))
    assert_inert(table)
    assert table.exit_code == 0
    assert "mal\\x1b]0;owned\\x07lory" in table.output
    assert "bidi\\u202eroc.exe" in table.output
    assert "[/bold]" in table.output
    as_json = invoke("bots", "list", "--data", str(tmp_path), "--json")
    assert_inert(as_json)
    assert sorted(b["name"] for b in json.loads(as_json.output)) == sorted(["plain", *HOSTILE])


def test_bots_revoke_echoes_a_hostile_argument_escaped(tmp_path: Path) -> None:
    assert invoke("bots", "add", "plain", "--data", str(tmp_path)).exit_code == 0
    result = invoke("bots", "revoke", f"{MARKUP}{OSC}", "--data", str(tmp_path))
    assert_inert(result)
    assert result.exit_code == 1
    assert "no bot named or with id" in result.output


# --- matches ------------------------------------------------------------------------------------
def _hostile_log(records: list[dict[str, Any]]) -> None:
    for seat, name in zip(records[0]["seats"], HOSTILE, strict=False):
        seat["bot_name"] = name
        seat["hello_name"] = f"hello {name}"
        seat["bot_version"] = CSI
    for record in records:
        if record["type"] == "penalty":
            record["reason"] = f"{MARKUP} {OSC} is illegal"


def test_matches_list_shows_hostile_names_escaped(match_copy: MatchCopy) -> None:
    with sqlite3.connect(match_copy.data / "referee.db") as db:
        db.execute("UPDATE matches SET bot_names=?", (json.dumps(HOSTILE[:4]),))
    db.close()
    table = invoke("matches", "list", "--data", str(match_copy.data))
    assert_inert(table)
    assert table.exit_code == 0, table.output
    assert "[/bold]" in table.output
    assert "\\x1b" in table.output
    as_json = invoke("matches", "list", "--data", str(match_copy.data), "--json")
    assert_inert(as_json)
    assert json.loads(as_json.output)[0]["bot_names"] == HOSTILE[:4]


@pytest.mark.parametrize("deal", [None, "1"])
def test_matches_show_prints_hostile_names_and_reasons_escaped(
    match_copy: MatchCopy, deal: str | None
) -> None:
    match_copy.edit(_hostile_log)
    extra = ["--deal", deal] if deal else []
    result = invoke("matches", "show", match_copy.match_id, "--data", str(match_copy.data), *extra)
    assert_inert(result)
    assert result.exit_code == 0, result.output
    assert "mal\\x1b]0;owned\\x07lory" in result.output
    assert "[/bold]" in result.output
    if deal:  # the deal view prints the penalty reasons
        assert "illegal: [/bold] mal\\x1b]0;owned\\x07lory" in result.output


def test_verify_of_a_log_with_hostile_names_still_reproduces(match_copy: MatchCopy) -> None:
    match_copy.edit(_hostile_log)  # names are not results: nothing to recompute
    result = invoke("matches", "verify", match_copy.match_id, "--data", str(match_copy.data))
    assert_inert(result)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("command", ["show", "export", "verify"])
@pytest.mark.parametrize("match_id", ["[/x]", f"m_{OSC}", f"m_{BIDI}"])
def test_a_hostile_match_id_argument_is_echoed_escaped(
    match_copy: MatchCopy, command: str, match_id: str
) -> None:
    result = invoke("matches", command, match_id, "--data", str(match_copy.data))
    assert_inert(result)
    assert result.exit_code == 1
    (line,) = result.output.strip().splitlines()
    assert line.startswith("error: no match with id")


def test_export_of_a_log_holding_raw_format_characters_prints_them_escaped(
    match_copy: MatchCopy,
) -> None:
    lines = match_copy.log.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["seats"][0]["bot_name"] = BIDI + "\x9b"
    lines[0] = json.dumps(header, ensure_ascii=False) + "\n"  # raw U+202E and C1: valid JSON
    match_copy.log.write_text("".join(lines))
    result = invoke("matches", "export", match_copy.match_id, "--data", str(match_copy.data))
    assert_inert(result)
    assert result.exit_code == 0
    exported = result.stdout.splitlines(keepends=True)
    assert json.loads(exported[0]) == header  # the same record, escaped as JSON
    assert exported[1:] == lines[1:]  # the untouched lines byte for byte


# --- seasons ------------------------------------------------------------------------------------
def test_a_season_file_with_markup_in_its_ruleset_is_a_one_line_error(tmp_path: Path) -> None:
    season = tmp_path / "season.toml"
    season.write_text(season_text(extra='ruleset = "[/x]"'))
    result = invoke("season", "run", str(season), "--data", str(tmp_path / "data"))
    assert_inert(result)
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert "unknown ruleset '[/x]'" in line
