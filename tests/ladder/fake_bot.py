"""A stand-in bot process for the runner's tests (run as a script, not collected by pytest).

It reads what the runner hands a command bot (BRANDELN_SERVER, BRANDELN_TOKEN,
BRANDELN_BOT_NAME, BRANDELN_TABLES and the expanded ``{tables}`` argument), prints them to its
log, opens that many seat sessions (Hello, then holds the stream) and waits to be stopped.

Usage: python fake_bot.py --tables N [--exit-code C] [--no-connect] [--exit-after S]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

import grpc

from brandeln.v1 import bot_pb2, bot_pb2_grpc


async def hold_session(stub: bot_pb2_grpc.RefereeAsyncStub, token: str, name: str) -> None:
    async def messages() -> object:
        yield bot_pb2.BotMessage(
            hello=bot_pb2.Hello(token=token, bot_name=name, protocol_version=1)
        )
        await asyncio.Event().wait()  # never half-close: the session lives until we die

    call = stub.Play(messages())  # type: ignore[arg-type]
    async for message in call:
        print(f"welcome {message.welcome.session_id}", flush=True)


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, required=True)
    parser.add_argument("--exit-code", type=int)
    parser.add_argument("--no-connect", action="store_true")
    parser.add_argument("--exit-after", type=float)
    args = parser.parse_args()
    env = os.environ
    server, token, name = env["BRANDELN_SERVER"], env["BRANDELN_TOKEN"], env["BRANDELN_BOT_NAME"]
    print(
        f"env name={name} server={server} tables={env['BRANDELN_TABLES']} arg={args.tables}",
        flush=True,
    )
    pid_dir = env.get("FAKE_BOT_PID_DIR")
    if pid_dir:
        Path(pid_dir, f"{os.getpid()}.pid").write_text(name)
    if args.exit_code is not None:
        print("failing on purpose", flush=True)
        return int(args.exit_code)
    if args.no_connect:
        await asyncio.Event().wait()
    channel = grpc.aio.insecure_channel(server)
    stub = bot_pb2_grpc.RefereeStub(channel)
    sessions = [asyncio.ensure_future(hold_session(stub, token, name)) for _ in range(args.tables)]
    if args.exit_after is not None:
        await asyncio.sleep(args.exit_after)
        print("exiting on purpose", flush=True)
        os._exit(3)
    await asyncio.gather(*sessions)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
