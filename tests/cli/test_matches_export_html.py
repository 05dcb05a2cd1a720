"""`brandeln matches export ID --html [-o FILE]`: the replay as one self-contained HTML file."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from typer.testing import CliRunner, Result

from brandeln.arena.logreader import read_log
from brandeln.cli.main import app
from brandeln.web.replay_model import match_model
from brandeln.web.templating import STATIC_DIR
from tests.cli.conftest import MatchCopy
from tests.web.hostile import HOSTILE_TEXTS, assert_inert

runner = CliRunner()
DATA = re.compile(r'<script type="application/json" id="replay-data">(.*?)</script>', re.S)
ICON = re.compile(r' href="data:image/svg\+xml;base64,[A-Za-z0-9+/=]*"')


def _export(copy: MatchCopy, *args: str) -> Result:
    return runner.invoke(app, ["matches", "export", *args, "--data", str(copy.data)])


def _embedded_model(html: str) -> object:
    found = DATA.search(html)
    assert found is not None
    return json.loads(found.group(1))


def test_export_html_writes_one_file_holding_the_replay_and_its_assets(
    match_copy: MatchCopy, tmp_path: Path
) -> None:
    target = tmp_path / "replay.html"
    args = ["matches", "export", match_copy.match_id[:8], "--html", "-o", str(target)]
    result = runner.invoke(app, [*args, "--data", str(match_copy.data)])
    assert result.exit_code == 0, result.output
    assert f"to {target}" in " ".join(result.output.split())
    html = target.read_text()
    assert _embedded_model(html) == match_model(read_log(match_copy.log.read_text()))
    assert "function stateAt(" in html  # the replay's script is inline
    assert ".rp-table" in html  # and its styles
    # nothing to fetch: no element with a source or a style sheet to load, and a policy
    # that forbids the browser any request
    assert not re.search(r"<(script|img|iframe)[^>]*\bsrc=", html)
    # its one link is the site's icon, inline as a data: URL (nothing to fetch)
    assert all('href="data:' in link for link in re.findall(r"<link[^>]*>", html))
    assert "default-src 'none'" in html
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)


def test_export_html_prints_to_stdout_without_output(match_copy: MatchCopy) -> None:
    result = _export(match_copy, match_copy.match_id, "--html")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("<!doctype html>")
    assert _embedded_model(result.stdout)["match_id"] == match_copy.match_id  # type: ignore[index]


def test_export_output_without_html_writes_the_log_as_recorded(
    match_copy: MatchCopy, tmp_path: Path
) -> None:
    target = tmp_path / "log.jsonl"
    result = runner.invoke(
        app,
        [
            "matches",
            "export",
            match_copy.match_id,
            "-o",
            str(target),
            "--data",
            str(match_copy.data),
        ],
    )
    assert result.exit_code == 0, result.output
    assert target.read_bytes() == match_copy.log.read_bytes()


def test_export_to_a_folder_that_does_not_exist_is_a_one_line_error(
    match_copy: MatchCopy, tmp_path: Path
) -> None:
    target = tmp_path / "missing" / "replay.html"
    result = _export(match_copy, match_copy.match_id, "--html", "-o", str(target))
    assert result.exit_code == 1
    assert "cannot write" in result.output
    assert "Traceback" not in result.output


def test_export_html_escapes_every_hostile_name_and_version_of_the_log(
    match_copy: MatchCopy, tmp_path: Path
) -> None:
    def hostile(records: list[dict[str, Any]]) -> None:
        texts = iter(HOSTILE_TEXTS * 2)  # the replay shows each seat's name and version
        for seat in records[0]["seats"]:
            name = next(texts)
            seat.update(bot_name=name, hello_name=name, bot_version=next(texts))
        records[0]["match_id"] = HOSTILE_TEXTS[2]

    match_copy.edit(hostile)
    target = tmp_path / "replay.html"
    result = _export(match_copy, match_copy.match_id, "--html", "-o", str(target))
    assert result.exit_code == 0, result.output
    html = target.read_text()
    # The file's own styles and script are inline: take them out, and what is left is checked
    # as the app's pages are.
    body = html
    for name in ("replay.js", "replay.css", "style.css"):
        body = body.replace((STATIC_DIR / name).read_text(encoding="utf-8"), "")
    body = ICON.sub("", body)  # the site's icon, as a data: URL of base64 only
    assert body.count("<script></script>") == 1
    assert_inert(body.replace("<script></script>", ""), shown=HOSTILE_TEXTS, where="export")
    model = _embedded_model(html)
    assert isinstance(model, dict)
    assert model["match_id"] == HOSTILE_TEXTS[2]


def test_a_status_the_log_format_lacks_is_refused_in_one_line_and_exports_nothing(
    match_copy: MatchCopy, tmp_path: Path
) -> None:
    # A status is one of the format's words (a MatchStatus), never text shown as it is: the
    # log is refused where it is read, before any page is made of it.
    def hostile(records: list[dict[str, Any]]) -> None:
        assert records[-1]["type"] == "footer"
        records[-1]["status"] = HOSTILE_TEXTS[1]

    match_copy.edit(hostile)
    target = tmp_path / "replay.html"
    result = _export(match_copy, match_copy.match_id, "--html", "-o", str(target))
    assert result.exit_code == 1
    assert "the footer record" in " ".join(result.output.split())
    assert "Traceback" not in result.output
    assert not target.exists()
