"""A minimal bot process for the referee's end-to-end tests: stubs and grpc only, no SDK.

Usage: python minimal_bot.py ADDRESS TOKEN BEHAVIOUR [NAME]

Behaviours:
  first      answer every request with its first legal choice
  last       answer with the last legal choice
  illegal    first send a choice that is not legal (once per match), then a legal one
  silent     never answer
  drop       answer; after 5 answers in its first match close the stream, wait, then resume
  garbage    answer the first request with an empty choice, then behave like "first"
  blabber    at its first request of deal 2 send 15 KB of BotLog and one illegal choice, then
             wait for the file $MINIMAL_BOT_RELEASE to exist before answering (like "first"),
             so a test can look at the log while the deal is live
With $BRANDELN_CA set it connects over TLS, trusting that CA file.
It prints every RefereeMessage kind it receives to stdout as JSON lines (with any card it was
sent), so a test can check what a seat saw.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
from google.protobuf import json_format

from brandeln.v1 import bot_pb2, bot_pb2_grpc, cards_pb2


def main() -> int:
    address, token, behaviour = sys.argv[1], sys.argv[2], sys.argv[3]
    name = sys.argv[4] if len(sys.argv) > 4 else behaviour
    resume_match = ""
    answers = 0
    dropped = False
    reconnect = False
    blabbered = False
    deal_number = 0
    while True:
        outgoing: queue.Queue[bot_pb2.BotMessage | None] = queue.Queue()
        outgoing.put(
            bot_pb2.BotMessage(
                hello=bot_pb2.Hello(
                    token=token,
                    bot_name=name,
                    bot_version="minimal-1",
                    protocol_version=1,
                    resume_match_id=resume_match,
                )
            )
        )

        def requests(
            q: queue.Queue[bot_pb2.BotMessage | None] = outgoing,
        ) -> Iterator[bot_pb2.BotMessage]:
            while True:
                item = q.get()
                if item is None:
                    return
                yield item

        ca_file = os.environ.get("BRANDELN_CA")
        if ca_file:
            credentials = grpc.ssl_channel_credentials(Path(ca_file).read_bytes())
            channel = grpc.secure_channel(address, credentials)
        else:
            channel = grpc.insecure_channel(address)
        stub = bot_pb2_grpc.RefereeStub(channel)
        illegal_sent: set[str] = set()
        match_id = ""
        try:
            for message in stub.Play(requests()):
                kind = message.WhichOneof("kind")
                print(
                    json.dumps({"kind": kind, "msg": json_format.MessageToDict(message)}),
                    flush=True,
                )
                if kind == "match_started":
                    match_id = message.match_started.match_id
                if kind == "deal_started":
                    deal_number = message.deal_started.deal_number
                if kind != "request":
                    continue
                request = message.request
                if behaviour == "silent":
                    continue
                if behaviour == "blabber" and deal_number == 2 and not blabbered:
                    blabbered = True
                    outgoing.put(bot_pb2.BotMessage(log=bot_pb2.BotLog(text="x" * 15_000)))
                    outgoing.put(
                        bot_pb2.BotMessage(
                            action=bot_pb2.Action(
                                request_id=request.request_id, choice=_not_legal(request)
                            )
                        )
                    )
                    release = Path(os.environ["MINIMAL_BOT_RELEASE"])
                    while not release.exists():
                        time.sleep(0.02)
                if behaviour == "illegal" and match_id not in illegal_sent:
                    illegal_sent.add(match_id)
                    outgoing.put(
                        bot_pb2.BotMessage(
                            action=bot_pb2.Action(
                                request_id=request.request_id, choice=_not_legal(request)
                            )
                        )
                    )
                if behaviour == "garbage" and answers == 0:
                    outgoing.put(
                        bot_pb2.BotMessage(action=bot_pb2.Action(request_id=request.request_id))
                    )
                choice = request.legal[-1] if behaviour == "last" else request.legal[0]
                outgoing.put(
                    bot_pb2.BotMessage(
                        action=bot_pb2.Action(request_id=request.request_id, choice=choice)
                    )
                )
                answers += 1
                if behaviour == "drop" and not dropped and answers == 5:
                    dropped = reconnect = True
                    resume_match = match_id
                    break
        except grpc.RpcError as error:
            print(
                json.dumps(
                    {"kind": "error", "code": str(error.code()), "details": error.details()}
                ),
                flush=True,
            )
            return 1
        finally:
            outgoing.put(None)
            channel.close()
        if reconnect:
            reconnect = False
            time.sleep(0.3)
            continue
        return 0


def _not_legal(request: bot_pb2.DecisionRequest) -> cards_pb2.Choice:
    legal = {c.SerializeToString(deterministic=True) for c in request.legal}
    phase = request.phase
    if phase == cards_pb2.PHASE_BID:
        return cards_pb2.Choice(bid=cards_pb2.Bid(contract="no-such-contract"))
    if phase == cards_pb2.PHASE_TRUMP:
        return cards_pb2.Choice(
            card=cards_pb2.Card(suit=cards_pb2.SUIT_CLUBS, rank=cards_pb2.RANK_ACE)
        )
    for suit in cards_pb2.Suit.values()[1:]:
        for rank in cards_pb2.Rank.values()[1:]:
            card = cards_pb2.Card(suit=suit, rank=rank)
            choice = cards_pb2.Choice(card=card)
            if choice.SerializeToString(deterministic=True) not in legal:
                return choice
    raise AssertionError("every card is legal")


if __name__ == "__main__":
    threading.current_thread().name = "minimal-bot"
    raise SystemExit(main())
