#!/usr/bin/env python3
"""A Brandeln bot for the stdio bridge, using only the Python standard library.

Run it through the bridge:

    brandeln bot bridge --server HOST:PORT --token TOKEN -- python3 simple_bot.py

It reads one JSON object per line on stdin and answers each {"type": "request"} with one line
on stdout: {"request_id": ..., "choice": ...}. Its rules: pass unless it holds four cards of a
suit including that suit's jack or seven, then bid the lowest contract and name that suit; when
leading play the last legal card, when following the first. Legal lists come in canonical order
(suits C S H D, low to high within a suit), so that is the highest card of its last suit and
the lowest card that follows the rules: no card knowledge needed.
"""

import json
import sys
from collections import Counter
from typing import Any


def strong_suit(hand: list[str]) -> str | None:
    """The suit letter of four or more cards holding the jack or the seven, else None."""
    counts = Counter(card[0] for card in hand)
    for suit, count in counts.most_common():
        if count >= 4 and (suit + "J" in hand or suit + "7" in hand):
            return suit
    return None


def decide(request: dict[str, Any]) -> str:
    legal: list[str] = request["legal"]
    view: dict[str, Any] = request["view"]
    if request["phase"] == "bid":
        bids = [choice for choice in legal if choice != "pass"]
        if strong_suit(view["hand"]) and bids and "pass" in legal:
            return bids[0]
        return legal[0]  # "pass" comes first
    if request["phase"] == "trump":
        suit = strong_suit(view["hand"])
        if suit in legal:
            return suit
        counts = Counter(card[0] for card in view["hand"])
        return max(legal, key=lambda s: counts[s])
    return legal[0] if view["current_trick"] else legal[-1]


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "match_started":
            note = {"type": "log", "text": f"simple_bot: seat {message['seat']}"}
            print(json.dumps(note), flush=True)
        elif message["type"] == "request":
            answer = {"request_id": message["request_id"], "choice": decide(message)}
            print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
