"""`brandeln bot check`: every sample bot passes; a bot breaking one rule fails that row.

Real processes end to end: the CLI in a subprocess, its embedded referee on loopback, the bot
started by the check as a season starts it (or connecting by itself with the printed address).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
BROKEN = ROOT / "tests" / "bots" / "broken"
NODE_BOT = ROOT / "sample_bots" / "node" / "bot.js"
BRIDGE_EXAMPLE = ROOT / "sample_bots" / "bridge_examples" / "simple_bot.py"
# Short: the many-matches check plays 5, one ruleset where the row is not about rulesets.
QUICK = ("--ruleset", "standard", "--matches", "5")


@pytest.fixture(autouse=True)
def _own_tmpdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failed check keeps its folder for the user to read: in a test, under tmp_path."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))


def bot_check(*args: str, timeout: float = 600) -> tuple[int, dict[str, Any]]:
    """`brandeln bot check --json ARGS`; a montecarlo it starts stops at a few samples (what
    it checks is the protocol, not how long the bot thinks: half its move time, else)."""
    completed = subprocess.run(
        [sys.executable, "-m", "brandeln.cli", "bot", "check", "--json", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env={**os.environ, "GRPC_VERBOSITY": "ERROR", "BRANDELN_SAMPLES": "8"},
        check=False,
    )
    assert completed.stdout, completed.stderr
    return completed.returncode, json.loads(completed.stdout)


def rows(document: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {
        " ".join(filter(None, (row["check"], row["subject"]))): (row["status"], row["reason"])
        for row in document["checks"]
    }


def failures(document: dict[str, Any]) -> dict[str, str]:
    return {label: reason for label, (status, reason) in rows(document).items() if status == "fail"}


def test_random_bot_passes_every_check_in_every_ruleset() -> None:
    code, document = bot_check("--", "brandeln", "bot", "run", "random")
    assert failures(document) == {}
    assert code == 0
    assert document["passed"]
    labels = set(rows(document))
    assert {"ruleset standard", "ruleset russian", "ruleset three-player"} <= labels
    for check in (
        "handshake",
        "bid",
        "hold",
        "trump",
        "card",
        "pass-out",
        "same request twice",
        "rejected, then legal",
        "time pressure",
        "dropped stream resumed",
        "several tables",
        "many matches",
    ):
        assert rows(document)[check][0] == "pass", check


@pytest.mark.parametrize(
    "command",
    [
        ("brandeln", "bot", "run", "heuristic"),
        ("montecarlo",),  # a sample bot by name, as `ab` and `match run` take it
        ("brandeln", "bot", "bridge", "--", "python", str(BRIDGE_EXAMPLE)),
    ],
    ids=["heuristic", "montecarlo-by-name", "bridge"],
)
def test_sample_bot_passes(command: tuple[str, ...]) -> None:
    code, document = bot_check(*QUICK, "--", *command)
    assert failures(document) == {}
    assert code == 0


def test_node_sample_bot_passes(node_bin: str) -> None:
    code, document = bot_check(*QUICK, "--", node_bin, str(NODE_BOT))
    assert failures(document) == {}
    assert code == 0


def test_the_correct_bare_bot_passes() -> None:
    """The broken bots' base with nothing broken: each failure below is its breakage's."""
    code, document = bot_check(*QUICK, "--", "python", str(BROKEN / "base.py"))
    assert failures(document) == {}
    assert code == 0


@pytest.mark.parametrize(
    ("bot", "extra", "row", "reason"),
    [
        ("ignores_rejection.py", (), "rejected, then legal", "no second answer to request"),
        ("answers_stale.py", (), "same request twice", "again after it was rejected as stale"),
        ("slow.py", (), "time pressure", "decisions timed out"),
        (
            "unknown_ruleset.py",
            ("--ruleset", "russian"),
            "ruleset russian",
            "'brandle' is not a bid in 'russian'",
        ),
        ("crashes_after.py", (), "many matches", "exited with code 3"),
        ("no_reconnect.py", (), "dropped stream resumed", "did not resume within"),
        ("one_table.py", (), "several tables", "BRANDELN_TABLES=3"),
    ],
    ids=lambda value: value if isinstance(value, str) and value.endswith(".py") else "",
)
def test_a_bot_breaking_a_rule_fails_that_check(
    bot: str, extra: tuple[str, ...], row: str, reason: str
) -> None:
    code, document = bot_check(*QUICK, *extra, "--", "python", str(BROKEN / bot))
    assert code == 1
    assert not document["passed"]
    status, why = rows(document)[row]
    assert status == "fail"
    assert reason in why
    assert rows(document)["handshake"][0] == "pass"


def test_a_bot_that_connects_by_itself_is_given_an_address_and_keeps_its_token() -> None:
    token = "my-own-token-123"
    check = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "brandeln.cli",
            "bot",
            "check",
            "--json",
            *QUICK,
            "--token",
            token,
            "--connect-timeout",
            "120",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    bot = None
    try:
        assert check.stderr is not None
        line = check.stderr.readline()
        assert line.startswith("connect the bot to "), line
        address = line.split()[4]
        assert line.split()[-1] == token
        bot = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "brandeln.cli",
                "bot",
                "run",
                "random",
                "--server",
                address,
                "--token",
                token,
                "--tables",
                "3",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
        )
        out, _ = check.communicate(timeout=600)
    finally:
        for process in (bot, check):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
    document = json.loads(out)
    assert failures(document) == {}
    assert check.returncode == 0


def test_an_unknown_ruleset_is_refused_before_anything_starts() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "brandeln.cli", "bot", "check", "--ruleset", "nope", "--", "x"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 2
    assert "nope" in completed.stderr
