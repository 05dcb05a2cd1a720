"""`brandeln` with one thing changed for a test, run as ``python -m tests.cli.patched_brandeln
PATCH ARGS...`` (``tests.cli_process.cli_process(..., module=...)``).

Patches:
  pause_at_record  `ladder serve`: just before a block's results are recorded, log the event
                   ``test_record_paused`` and hold the transaction until the ladder has been
                   told to stop (SIGTERM), so a stop lands mid-record every time, not by luck.
  fail_serve       `serve`: creating the gRPC server raises RuntimeError (an unexpected error).
  fail_ladder      `ladder serve`: the ladder's loop raises RuntimeError once its referee runs.
  fail_web         `web`: uvicorn's run raises RuntimeError once the pages are announced.
  hold_serve       `ladder serve`: the ladder's loop only waits for the stop, so what is in
                   the store is what the command wrote before it said "is serving".
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, Final
from unittest import mock

MODULE: Final = "tests.cli.patched_brandeln"  # what cli_process(..., module=) runs
PAUSED: Final = "test_record_paused"
FAILURE: Final = "forced by the test"
POLL_S: Final = 0.01  # how often the paused record looks whether the stop has come


def _pause_at_record() -> None:
    import brandeln.ladder.living.ladder  # noqa: PLC0415

    told_to_stop: list[asyncio.Event] = []
    serve = brandeln.ladder.living.ladder.LivingLadder.serve
    record = vars(brandeln.ladder.living.ladder)["record_and_rate"]
    paused = threading.Event()  # the first record only: the ladder stops after it

    async def serving(
        self: brandeln.ladder.living.ladder.LivingLadder, stop: asyncio.Event
    ) -> None:
        told_to_stop.append(stop)
        await serve(self, stop)

    def recording(*args: Any) -> Any:
        if not paused.is_set():
            paused.set()
            logging.getLogger("brandeln.test").info("recording", extra={"event": PAUSED})
            # In the worker thread that runs the transaction: asyncio's Event is read, not
            # awaited (its flag is a plain attribute).
            while not told_to_stop[0].is_set():
                time.sleep(POLL_S)
        return record(*args)

    _replace(brandeln.ladder.living.ladder.LivingLadder, "serve", serving)
    _replace(brandeln.ladder.living.ladder, "record_and_rate", recording)


def _replace(owner: object, name: str, new: object) -> None:
    """``owner.name`` is ``new`` for the rest of the process."""
    mock.patch.object(owner, name, new).start()


def _raising(*args: object, **kwargs: object) -> Any:
    raise RuntimeError(FAILURE)


def _fail_serve() -> None:
    import brandeln.arena.server  # noqa: PLC0415

    _replace(brandeln.arena.server, "create_server", _raising)


def _fail_ladder() -> None:
    import brandeln.ladder.living.ladder  # noqa: PLC0415

    _replace(brandeln.ladder.living.ladder.LivingLadder, "serve", _raising)


def _fail_web() -> None:
    import uvicorn  # noqa: PLC0415

    _replace(uvicorn.Server, "run", _raising)


def _hold_serve() -> None:
    import brandeln.ladder.living.ladder  # noqa: PLC0415

    async def holding(
        self: brandeln.ladder.living.ladder.LivingLadder, stop: asyncio.Event
    ) -> None:
        await stop.wait()

    _replace(brandeln.ladder.living.ladder.LivingLadder, "serve", holding)


PATCHES: Final[dict[str, Callable[[], None]]] = {
    "pause_at_record": _pause_at_record,
    "fail_serve": _fail_serve,
    "fail_ladder": _fail_ladder,
    "fail_web": _fail_web,
    "hold_serve": _hold_serve,
}


def main() -> None:
    PATCHES[sys.argv.pop(1)]()
    from brandeln.cli.main import app  # noqa: PLC0415

    app()


if __name__ == "__main__":
    main()
