"""Expected output against actual: line by line, ``...`` within a line or as whole lines."""

from __future__ import annotations

import pytest

from tests.docs.examples.output_match import difference, line_matches, output_matches


@pytest.mark.parametrize(
    ("expected", "actual", "matches"),
    [
        ("registered mybot as bot_...", "registered mybot as bot_0123456789ab", True),
        ("registered mybot as bot_...", "registered yourbot as bot_01", False),
        ("... in ... s", "16 deals in 3.8 s", True),
        ("... in ... s", "16 deals in 3.8 ms", False),
        ("a...", "a", True),
        ("exact (with [regex] chars.*)", "exact (with [regex] chars.*)", True),
        ("exact (with [regex] chars.*)", "exact (with r chars!!)", False),
        ("a.b", "axb", False),
    ],
)
def test_an_ellipsis_in_a_line_matches_any_text(expected: str, actual: str, matches: bool) -> None:
    assert line_matches(expected, actual) is matches


@pytest.mark.parametrize(
    ("expected", "actual", "matches"),
    [
        (["a", "b"], ["a", "b"], True),
        (["a", "b"], ["a", "c"], False),
        (["a", "b"], ["a"], False),
        (["a"], ["a", "b"], False),
        (["a", "...", "d"], ["a", "d"], True),
        (["a", "...", "d"], ["a", "b", "c", "d"], True),
        (["a", "...", "d"], ["a", "b", "c"], False),
        (["...", "x ...", "..."], ["1", "2", "x marks", "3"], True),
        (["...", "x ...", "..."], ["1", "2", "3"], False),
        (["..."], [], True),
        (["a", "...", "b", "...", "b"], ["a", "b", "c", "b"], True),
        (["a", "...", "b", "...", "b"], ["a", "b", "c"], False),
        (["a  ", "b", "", ""], ["a", "b   ", ""], True),
        ([], ["something"], False),
        ([], ["", ""], True),
        ([" ..."], ["a", "b"], False),  # indented: an ellipsis within one line
    ],
)
def test_a_line_of_only_an_ellipsis_matches_any_number_of_lines(
    expected: list[str], actual: list[str], matches: bool
) -> None:
    assert output_matches(expected, actual) is matches


def test_a_long_output_matches_without_recursion() -> None:
    actual = [f"line {n}" for n in range(20_000)]
    assert output_matches(["line 0", "...", "line 19999"], actual)
    assert not output_matches(["line 0", "...", "line 20000"], actual)


def test_the_difference_shows_both_sides_and_a_diff() -> None:
    shown = difference(["a", "b"], ["a", "c"])
    assert shown.splitlines() == [
        "expected (the page):",
        "    a",
        "    b",
        "actual (the command):",
        "    a",
        "    c",
        "diff (... in the page matches any text):",
        "--- the page",
        "+++ the command",
        "@@ -1,2 +1,2 @@",
        " a",
        "-b",
        "+c",
    ]


@pytest.mark.parametrize(
    ("expected", "actual", "matches"),
    [
        # A table's column as wide as the figures in it, which the page leaves out.
        ("   3  policy_bot (hello: policy)     ...", "   3  policy_bot (hello: policy)  +12", True),
        ("seat  bot      chips", "seat  bot  chips", True),
        ("seat  bot      chips", "seat  bot\tchips", False),  # spaces only, not tabs
        ("seat bot", "seatbot", False),  # a run of spaces matches one at least
        ("  indented", "indented", False),
        ("a b", "a  b", True),
    ],
)
def test_a_run_of_spaces_matches_a_run_of_any_length(
    expected: str, actual: str, matches: bool
) -> None:
    assert line_matches(expected, actual) is matches
