"""The engine pool's callback door (:meth:`Pool.submit`): results, errors, time limits,
cancellation and a full queue, each settled exactly once on the event loop's thread."""

from __future__ import annotations

import asyncio
import threading

import pytest

from bot.serve.pool import Busy, Pool


async def settle(pool: Pool, fn: object, timeout_s: float | None = None) -> tuple[object, BaseException | None, int]:
    """(result, error, calls of done) of one submitted call, on the loop's thread."""
    loop = asyncio.get_running_loop()
    seen: list[tuple[object, BaseException | None]] = []
    finished = loop.create_future()

    def done(result: object, error: BaseException | None) -> None:
        assert threading.current_thread() is threading.main_thread()
        seen.append((result, error))
        if not finished.done():
            finished.set_result(None)
    pool.submit(fn, done, timeout_s)  # type: ignore[arg-type]
    await asyncio.wait_for(finished, 10)
    await asyncio.sleep(0.3)  # a second call of done would come by now
    return seen[0][0], seen[0][1], len(seen)


async def test_a_result_and_an_error_come_back_once() -> None:
    pool = Pool(2)
    assert await settle(pool, lambda: threading.current_thread().name.startswith("engine")) == (True, None, 1)

    def fails() -> None:
        raise ValueError("bad board")
    result, error, calls = await settle(pool, fails)
    assert result is None and isinstance(error, ValueError) and calls == 1
    assert pool.pending == 0
    pool.close()


async def test_a_call_over_its_limit_is_a_timeout_and_its_late_result_is_dropped() -> None:
    pool = Pool(1)
    release = threading.Event()
    result, error, calls = await settle(pool, lambda: release.wait(10), timeout_s=0.2)
    assert result is None and isinstance(error, TimeoutError) and calls == 1
    assert pool.pending == 0  # the place is given back at once
    release.set()
    await asyncio.sleep(0.2)  # the call's own end changes nothing
    assert pool.pending == 0
    pool.close()


async def test_a_cancelled_call_still_queued_never_runs_and_a_full_queue_is_busy() -> None:
    pool = Pool(1, queue=1)
    release = threading.Event()
    ran: list[str] = []
    answers: list[object] = []
    first = pool.submit(lambda: release.wait(10), lambda r, e: answers.append(r))
    second = pool.submit(lambda: ran.append("second"), lambda r, e: answers.append(r))
    with pytest.raises(Busy):
        pool.submit(lambda: None, lambda r, e: None)
    second.cancel()
    assert pool.pending == 1
    release.set()
    for _ in range(100):
        if answers:
            break
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.1)
    assert answers == [True] and ran == [] and pool.pending == 0
    first.cancel()  # already settled: nothing changes
    assert pool.pending == 0
    pool.close()
