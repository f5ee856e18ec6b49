"""The one owner of worker processes: one worker runs everything here; more fork, with the
function inherited (never pickled) and the results in order; a worker's error is raised here.
The tests of when a fork is safe run in a fresh interpreter: a thread another test left running
in this one (a server's, a driver's) rightly forbids forking here."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

import pytest

from reader.workers import Workers, isolated


def alone(check: Callable[[], None]) -> None:
    """Run `check` in a fresh interpreter, where no other test's thread runs."""
    isolated(check)


def test_one_worker_runs_everything_in_this_process():
    me = os.getpid()
    assert Workers(1).map(lambda n: (n * n, os.getpid()), range(20)) == [(n * n, me) for n in range(20)]
    assert not Workers(1).may_fork()
    assert Workers(1).beside(os.getpid)() == me
    asked: list[int] = []
    later = Workers(1).start(lambda n: asked.append(n) or os.getpid(), [1, 2])
    assert asked == []  # computed when its results are asked for, here
    assert later() == [me, me] and asked == [1, 2]


def test_two_workers_fork_with_the_function_inherited_and_keep_the_order():
    alone(_fork_and_keep_the_order)


def _fork_and_keep_the_order() -> None:
    held = threading.Lock()  # not picklable: the function reaches the workers by the fork
    out = Workers(2).map(lambda n: (n, os.getpid(), held is not None), list(range(40)), chunk=3)
    assert [n for n, _, _ in out] == list(range(40)) and all(ok for _, _, ok in out)
    assert os.getpid() not in {pid for _, pid, _ in out}
    assert Workers(2).beside(os.getpid)() != os.getpid()


def test_start_forks_now_and_close_ends_what_was_not_asked_for():
    alone(_start_and_close)


def _start_and_close() -> None:
    import multiprocessing
    import time

    workers = Workers(2)
    started = workers.start(lambda n: (n, os.getpid()), list(range(9)))
    out = started()
    assert [n for n, _ in out] == list(range(9)) and os.getpid() not in {pid for _, pid in out}
    workers.start(time.sleep, [60, 60])  # never asked for: a build that failed before it
    workers.close()
    assert multiprocessing.active_children() == []


def test_a_large_result_frees_its_worker_before_it_is_asked_for():
    alone(_large_result)


def _large_result() -> None:
    """A result over `SPILL` bytes comes back through a file: the worker ends once it is written
    (through the queue alone, it would wait, holding its memory, until the caller read it)."""
    import multiprocessing
    import time

    from reader.workers import SPILL

    big = Workers(2).beside(lambda: (os.getpid(), "x" * (3 * SPILL)))
    for _ in range(600):  # until the worker has ended, a minute at most
        if not multiprocessing.active_children():
            break
        time.sleep(0.1)
    assert multiprocessing.active_children() == []
    pid, text = big()
    assert pid != os.getpid() and text == "x" * (3 * SPILL)
    small = Workers(2).map(lambda n: "y" * n, [10, 20, 30])  # small ones come in the message
    assert small == ["y" * 10, "y" * 20, "y" * 30]


def _fails(n: int) -> int:
    if n == 7:
        raise ValueError(f"item {n}")
    return n


def test_a_workers_error_is_raised_here():
    with pytest.raises(ValueError, match="item 7"):
        Workers(2).map(_fails, list(range(20)))


def test_no_fork_beside_a_thread_this_object_did_not_start():
    alone(_no_fork_beside_a_thread)


def _no_fork_beside_a_thread() -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        workers = Workers(2)
        assert not workers.may_fork()
        assert workers.beside(os.getpid)() == os.getpid()  # computed here instead
    finally:
        stop.set()
        other.join()
    assert Workers(2).may_fork()


def test_a_pools_own_threads_do_not_forbid_a_fork():
    alone(_a_pools_own_threads)


def _a_pools_own_threads() -> None:
    workers = Workers(2)
    with workers.pool() as pool:
        assert pool is not None
        assert pool.submit(abs, -3).result() == 3
        assert workers.may_fork()


def test_isolated_runs_in_a_fresh_interpreter():
    assert isolated(os.getpid) != os.getpid()
