"""brandeln.bench.referee.loop_profile: the loop thread's CPU by what each callback runs."""

from __future__ import annotations

import asyncio
import asyncio.events
import functools
import time

import pytest

from brandeln.bench.referee.loop_profile import (
    LOOP_ITSELF,
    OTHER_THREADS,
    LoopProfile,
    callback_name,
)


def _spin(seconds: float) -> None:
    """Burn about ``seconds`` of this thread's CPU."""
    until = time.thread_time() + seconds
    while time.thread_time() < until:
        pass


async def busy_task() -> None:
    _spin(0.02)
    await asyncio.sleep(0)
    _spin(0.02)


def busy_callback() -> None:
    _spin(0.01)


async def test_each_task_and_callback_is_charged_its_own_cpu() -> None:
    loop = asyncio.get_running_loop()
    with LoopProfile() as profile:
        await asyncio.create_task(busy_task())
        done = loop.create_future()
        loop.call_soon(functools.partial(busy_callback))
        loop.call_soon(done.set_result, None)
        await done
    rows = profile.by_name()
    task_cpu, task_runs = rows["busy_task"]
    assert task_runs == 2  # two steps: before and after its await
    assert 0.035 <= task_cpu < 0.2
    callback_cpu, callback_runs = rows["busy_callback"]  # the partial is unwrapped
    assert callback_runs == 1
    assert 0.008 <= callback_cpu < task_cpu
    assert rows[LOOP_ITSELF][0] >= 0
    assert sum(cpu for cpu, _ in rows.values()) == pytest.approx(
        profile.process_cpu_s, rel=0.05, abs=0.005
    )
    per_decision = profile.per_decision_us(10)
    assert per_decision["busy_task"] == pytest.approx(task_cpu * 1e6 / 10)


async def test_work_on_other_threads_is_its_own_row() -> None:
    with LoopProfile() as profile:
        await asyncio.to_thread(_spin, 0.05)
    rows = profile.by_name()
    assert rows[OTHER_THREADS][0] >= 0.04
    assert rows[OTHER_THREADS][0] <= profile.process_cpu_s


async def test_it_uninstalls_itself_and_allows_one_at_a_time() -> None:
    original = asyncio.events.Handle._run
    profile = LoopProfile()
    profile.start()
    try:
        assert asyncio.events.Handle._run is not original
        with pytest.raises(RuntimeError, match="already installed"):
            LoopProfile().start()
    finally:
        profile.stop()
    assert asyncio.events.Handle._run is original
    profile.stop()  # a second stop does nothing
    with LoopProfile():  # and another may start now
        await asyncio.sleep(0)
    assert asyncio.events.Handle._run is original


async def test_a_failing_callback_is_still_charged_and_its_error_goes_on() -> None:
    loop = asyncio.get_running_loop()
    errors: list[BaseException] = []
    loop.set_exception_handler(lambda _loop, context: errors.append(context["exception"]))

    def fails() -> None:
        raise ValueError("boom")

    with LoopProfile() as profile:
        loop.call_soon(fails)
        await asyncio.sleep(0.01)
    (runs,) = [runs for name, (_, runs) in profile.by_name().items() if name.endswith("fails")]
    assert runs == 1
    assert [str(e) for e in errors] == ["boom"]


def test_names_of_callbacks_and_anything_else() -> None:
    assert callback_name(functools.partial(functools.partial(busy_callback), 1)) == "busy_callback"

    class Callable:
        def __call__(self) -> None:
            return None

    assert callback_name(Callable()) == "Callable"
