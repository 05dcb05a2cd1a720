"""The seat inbox: FIFO order, a wake-up on put, a timed wait, clean cancellation."""

from __future__ import annotations

import asyncio

import pytest

from brandeln.arena.mailbox import Mailbox


async def test_items_come_out_in_arrival_order() -> None:
    box: Mailbox[int] = Mailbox()
    for n in range(3):
        box.put_nowait(n)
    assert box.qsize() == 3
    assert [box.get_nowait() for _ in range(3)] == [0, 1, 2]
    assert box.empty()


async def test_a_put_wakes_the_waiter_before_its_timeout() -> None:
    box: Mailbox[str] = Mailbox()
    loop = asyncio.get_running_loop()
    loop.call_later(0.01, box.put_nowait, "answer")
    started = loop.time()
    assert await box.wait(30.0) is True
    assert loop.time() - started < 5.0
    assert box.get_nowait() == "answer"


async def test_the_wait_ends_empty_handed_at_its_timeout() -> None:
    box: Mailbox[str] = Mailbox()
    assert await box.wait(0.01) is False
    assert await box.wait(0) is False
    assert await box.wait(-1) is False


async def test_a_cancelled_wait_leaves_the_box_usable() -> None:
    box: Mailbox[str] = Mailbox()
    waiting = asyncio.ensure_future(box.wait(30.0))
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    box.put_nowait("later")  # no waiter left to wake, and no error
    assert await box.wait(0.01) is True


async def test_get_waits_for_the_next_item_and_survives_a_cancelled_wait() -> None:
    box: Mailbox[int] = Mailbox()
    box.put_nowait(1)
    assert await box.get() == 1
    getter = asyncio.ensure_future(box.get())
    await asyncio.sleep(0)
    assert not getter.done()
    box.put_nowait(2)
    assert await getter == 2
    cancelled = asyncio.ensure_future(box.get())
    await asyncio.sleep(0)
    cancelled.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    box.put_nowait(3)
    assert await box.get() == 3


async def _answered_wait(box: Mailbox[str], timeout: float) -> None:
    """A wait the next loop step answers: it returns at once, and leaves its timer armed."""
    asyncio.get_running_loop().call_soon(box.put_nowait, "answer")
    assert await box.wait(timeout) is True
    box.get_nowait()


async def test_one_timer_serves_successive_waits_and_each_times_out_at_its_own_deadline() -> None:
    box: Mailbox[str] = Mailbox()
    loop = asyncio.get_running_loop()
    await _answered_wait(box, 0.05)
    started = loop.time()
    # A later deadline keeps the armed timer: it fires early and arms itself again.
    assert await box.wait(0.2) is False
    assert 0.2 <= loop.time() - started < 5.0
    await _answered_wait(box, 30.0)
    started = loop.time()
    # An earlier deadline than the armed timer's gets a timer of its own.
    assert await box.wait(0.01) is False
    assert loop.time() - started < 5.0


async def test_a_lapsing_timer_does_not_wake_an_untimed_get() -> None:
    box: Mailbox[str] = Mailbox()
    await _answered_wait(box, 0.01)
    getter = asyncio.ensure_future(box.get())
    await asyncio.sleep(0.05)  # the timer fires meanwhile, with no timed wait under way
    assert not getter.done()
    box.put_nowait("later")
    assert await getter == "later"
