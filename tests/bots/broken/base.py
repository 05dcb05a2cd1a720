"""A bare bot for `bot check`'s tests: correct by default, with one rule broken on demand.

Each file beside this one breaks one rule (``python tests/bots/broken/slow.py``). It reads
BRANDELN_SERVER, BRANDELN_TOKEN and BRANDELN_TABLES as a season's command bots do, opens one
stream per table, answers the first legal choice, answers a rejected request again, and
resumes a dropped match; a :class:`Breakage` turns one of those off or adds a fault.
"""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as a script: the stubs live in the repository

import grpc  # noqa: E402
from grpc import aio  # noqa: E402

from brandeln.v1 import bot_pb2, cards_pb2  # noqa: E402

STALE = bot_pb2.REJECT_CODE_STALE_REQUEST
PLAY = "/brandeln.v1.Referee/Play"
Call = aio.StreamStreamCall[Any, bot_pb2.RefereeMessage]


@dataclass
class Breakage:
    """Which rule the bot breaks (all off: a correct bot)."""

    ignore_rejections: bool = False  # never answers a rejected request again
    answer_every_rejection: bool = False  # answers again even when told the request is stale
    # Thinks this long before each answer its clock gives less time than that: slower than the
    # time-pressure check allows, and no slower than it needs to be elsewhere.
    slow_s: float = 0.0
    unknown_rulesets: frozenset[str] = field(default_factory=frozenset)  # bids nonsense there
    crash_after: int = 0  # exits (code 3) after this many matches in all (0: never)
    no_reconnect: bool = False  # a dropped stream ends the table
    one_table: bool = False  # ignores BRANDELN_TABLES


class BrokenBot:
    def __init__(self, breakage: Breakage) -> None:
        self.breakage = breakage
        self.matches = 0

    async def table(self, channel: aio.Channel, token: str) -> None:
        match_id, ruleset = "", ""
        play = channel.stream_stream(
            PLAY,
            request_serializer=bot_pb2.BotMessage.SerializeToString,
            response_deserializer=bot_pb2.RefereeMessage.FromString,
        )
        while True:
            call: Call = play()
            hello = bot_pb2.Hello(
                token=token,
                bot_name="broken",
                bot_version="0.1",
                protocol_version=1,
                resume_match_id=match_id,
                snapshot_only=True,
            )
            await call.write(bot_pb2.BotMessage(hello=hello))
            open_request: bot_pb2.DecisionRequest | None = None
            try:
                while (message := await call.read()) is not aio.EOF:
                    assert isinstance(message, bot_pb2.RefereeMessage)
                    kind = message.WhichOneof("kind")
                    if kind == "match_started":
                        match_id = message.match_started.match_id
                        ruleset = message.match_started.ruleset.id
                    elif kind == "request":
                        open_request = message.request
                        await self.answer(call, message.request, ruleset)
                    elif kind == "rejected":
                        await self.rejected(call, message.rejected, open_request, ruleset)
                    elif kind == "match_ended":
                        match_id, open_request = "", None
                        self.matches += 1
                        if self.breakage.crash_after and self.matches >= self.breakage.crash_after:
                            print(f"crashing after {self.matches} matches", flush=True)
                            os._exit(3)
            except aio.AioRpcError as error:
                if error.code() == grpc.StatusCode.UNAUTHENTICATED:
                    raise
            except (aio.UsageError, asyncio.InvalidStateError):
                pass  # wrote to a stream that had ended: as a drop
            if self.breakage.no_reconnect:
                return
            await asyncio.sleep(0.2)

    async def answer(self, call: Call, request: bot_pb2.DecisionRequest, ruleset: str) -> None:
        if self.breakage.slow_s and request.move_ms < self.breakage.slow_s * 1000:
            await asyncio.sleep(self.breakage.slow_s)
        choice = request.legal[0]
        if ruleset in self.breakage.unknown_rulesets and request.phase == cards_pb2.PHASE_BID:
            choice = cards_pb2.Choice(bid=cards_pb2.Bid(contract="brandle"))  # not theirs
        action = bot_pb2.Action(request_id=request.request_id, choice=choice)
        await call.write(bot_pb2.BotMessage(action=action))

    async def rejected(
        self,
        call: Call,
        rejected: bot_pb2.ActionRejected,
        open_request: bot_pb2.DecisionRequest | None,
        ruleset: str,
    ) -> None:
        if self.breakage.ignore_rejections or open_request is None:
            return
        if self.breakage.answer_every_rejection:
            stale = open_request.request_id != rejected.request_id
            request = bot_pb2.DecisionRequest()
            request.CopyFrom(open_request)
            request.request_id = rejected.request_id if stale else request.request_id
            await self.answer(call, request, ruleset)
            return
        if rejected.code != STALE and rejected.request_id == open_request.request_id:
            await self.answer(call, open_request, ruleset)


async def _main(breakage: Breakage) -> None:
    server, token = os.environ["BRANDELN_SERVER"], os.environ["BRANDELN_TOKEN"]
    tables = 1 if breakage.one_table else int(os.environ.get("BRANDELN_TABLES", "1"))
    bot = BrokenBot(breakage)
    async with aio.insecure_channel(server) as channel:
        await asyncio.gather(*(bot.table(channel, token) for _ in range(tables)))


def main(breakage: Breakage) -> None:
    asyncio.run(_main(breakage))


if __name__ == "__main__":
    main(Breakage())  # the correct bot
