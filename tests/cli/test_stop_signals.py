"""`stop_signals`: SIGINT/SIGTERM stop the command, and never get their default action back.

Seen: `brandeln serve` under a supervisor's SIGTERM every few milliseconds ended by signal
(-15) now and then on a loaded machine: asyncio's ``remove_signal_handler`` restores
``SIG_DFL`` before the command could ignore the signal.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable
from typing import Any

import pytest

from brandeln.cli.stop_signals import STOP_SIGNALS, SignalLatch, stop_on_signals


def _record_signal_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, Any]]:
    calls: list[tuple[int, Any]] = []
    real: Callable[..., Any] = signal.signal

    def recording(signum: int, handler: Any) -> Any:
        calls.append((signum, handler))
        return real(signum, handler)

    monkeypatch.setattr(signal, "signal", recording)
    return calls


@pytest.mark.parametrize("signum", STOP_SIGNALS)
def test_a_signal_sets_the_stop_event_and_is_ignored_after(
    signum: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _record_signal_calls(monkeypatch)

    async def main() -> None:
        stop = asyncio.Event()
        with stop_on_signals(stop):
            os.kill(os.getpid(), signum)
            async with asyncio.timeout(30):
                await stop.wait()

    asyncio.run(main())
    assert signal.getsignal(signum) is signal.SIG_IGN
    os.kill(os.getpid(), signum)  # ignored: the test goes on
    # At no instant did either signal get its default action (or Python's KeyboardInterrupt).
    defaults = {signal.SIG_DFL, signal.default_int_handler}
    assert not [call for call in calls if call[1] in defaults]


@pytest.mark.parametrize("signum", STOP_SIGNALS)
def test_the_latch_keeps_a_signal_until_the_loop_takes_it_and_outlives_the_loop(
    signum: int,
) -> None:
    latch = SignalLatch()
    latch.install()
    os.kill(os.getpid(), signum)  # before the loop: caught, not lost, not the default action
    handed: list[int] = []
    latch.hand_over(lambda got, frame: handed.append(got))
    assert handed == [signum]
    os.kill(os.getpid(), signum)  # after the loop: caught again, the process goes on
    assert latch.received == [signum, signum]
