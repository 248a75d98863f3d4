"""``ui.replay.prefetch``: the steps beside the one shown are computed on one background thread, each call
once while it is queued, at most ``MAX_PENDING`` at a time, a failing one dropped; nothing without a browser."""
from __future__ import annotations

import threading

from ui.replay import prefetch as replay_prefetch


def _drain() -> None:
    replay_prefetch._pool.submit(lambda: None).result(timeout=30)


def test_the_next_and_the_previous_step_are_the_neighbours():
    assert replay_prefetch.neighbours(3, 10) == [4, 2]
    assert replay_prefetch.neighbours(1, 10) == [2]
    assert replay_prefetch.neighbours(10, 10) == [9]
    assert replay_prefetch.neighbours(1, 1) == []


def test_a_call_runs_on_the_background_thread_once_while_queued(monkeypatch):
    monkeypatch.setattr(replay_prefetch, "_enabled", lambda: True)
    release, seen = threading.Event(), []

    def slow(step):
        release.wait(10)
        seen.append((step, threading.current_thread().name))

    assert replay_prefetch.prefetch(slow, 2)
    assert not replay_prefetch.prefetch(slow, 2)  # already queued
    assert replay_prefetch.prefetch(slow, 3)
    release.set()
    _drain()
    assert [step for step, _ in seen] == [2, 3]
    assert all(name.startswith(replay_prefetch.THREAD_NAME) for _, name in seen)
    assert replay_prefetch.prefetch(slow, 2)  # done: it may be queued again
    _drain()


def test_the_queue_is_bounded_and_a_failing_call_is_dropped(monkeypatch):
    monkeypatch.setattr(replay_prefetch, "_enabled", lambda: True)
    release = threading.Event()

    def slow(step):
        release.wait(10)
        if step == 0:
            raise ValueError("broken step")

    queued = [replay_prefetch.prefetch(slow, step) for step in range(replay_prefetch.MAX_PENDING + 3)]
    assert queued.count(True) == replay_prefetch.MAX_PENDING
    release.set()
    _drain()
    assert not replay_prefetch._pending  # the failing call too is off the queue


def test_nothing_is_prefetched_outside_a_browser_session():
    ran = []
    assert not replay_prefetch.prefetch(ran.append, 1)  # no session here (as in AppTest: no request headers)
    _drain()
    assert ran == []


def test_an_argument_that_cannot_key_the_queue_is_not_prefetched(monkeypatch):
    monkeypatch.setattr(replay_prefetch, "_enabled", lambda: True)
    assert not replay_prefetch.prefetch(print, ["a list"])
