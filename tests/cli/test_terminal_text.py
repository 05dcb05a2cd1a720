"""Bot-supplied text reaches the terminal only as visible, inert characters."""

from __future__ import annotations

import pytest
from rich.console import Console

from brandeln.cli.terminal_text import markup, plain, safe


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("mallory", "mallory"),
        ("a\x1b[31mred", "a\\x1b[31mred"),
        ("osc\x1b]0;title\x07", "osc\\x1b]0;title\\x07"),
        ("nul\x00del\x7f", "nul\\x00del\\x7f"),
        ("c1\x9b", "c1\\x9b"),
        ("bidi\u202etxt", "bidi\\u202etxt"),
        ("isolate\u2066x", "isolate\\u2066x"),
        ("zero\u200bwidth", "zero\\u200bwidth"),
        ("tab\tnew\nline", "tab\\x09new\\x0aline"),
        ("Grüße ♠", "Grüße ♠"),
    ],
)
def test_safe_shows_control_and_format_characters(raw: str, shown: str) -> None:
    assert safe(raw) == shown


@pytest.mark.parametrize("raw", ["[/bold]", "[/x]y", "[red]x[/red]", "\\[", "[link=x]y"])
def test_markup_and_plain_render_as_written(raw: str) -> None:
    console = Console(record=True, width=80, color_system=None)
    console.print(f"name: {markup(raw)}")
    console.print(plain(raw))
    embedded, as_text = console.export_text().splitlines()
    assert as_text == raw
    assert embedded == "name: " + raw.replace("\\[", "\\x5c[")


def test_rendered_output_holds_no_escape_byte() -> None:
    console = Console(record=True, width=80, color_system=None)
    console.print(plain("\x1b]52;c;ZXZpbA==\x07"))
    assert "\x1b" not in console.export_text()
