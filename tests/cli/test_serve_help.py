"""`serve --help` lists the referee's caps from brandeln.arena.limits itself, so they cannot
drift."""

from __future__ import annotations

import dataclasses

from typer.testing import CliRunner

from brandeln.arena import limits
from brandeln.cli.main import app


def _help() -> str:
    result = CliRunner().invoke(app, ["serve", "--help"], terminal_width=80)
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())  # click wraps at spaces: undo it


def test_serve_help_lists_every_connection_and_protocol_cap_with_its_default() -> None:
    shown = _help()
    for cls in (limits.ConnectionLimits, limits.ProtocolLimits):
        for field in dataclasses.fields(cls):
            assert f"{field.name}={field.default}" in shown


def test_serve_help_lists_the_flood_limits_and_the_admin_token_minimum() -> None:
    shown = _help()
    assert f"max_bot_message_bytes={limits.MAX_BOT_MESSAGE_BYTES}" in shown
    assert f"max_resumes_per_match={limits.MAX_RESUMES_PER_MATCH}" in shown
    assert f"lobby_message_limit={limits.LOBBY_MESSAGE_LIMIT}" in shown
    assert f"at least {limits.MIN_ADMIN_TOKEN_CHARS} characters" in shown


def test_serve_help_lists_the_metrics_and_log_options_with_their_choices() -> None:
    shown = _help()
    for option in ("--metrics-port", "--metrics-host", "--log-level", "--log-json"):
        assert option in shown
    assert "<debug|info|warning|error>" in shown
    assert "http://HOST:PORT/metrics" in shown
    assert "[default: off]" in shown  # no endpoint unless asked for
    assert "[default: warning]" in shown
