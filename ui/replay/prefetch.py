"""Warm the caches of the steps beside the one shown, while the reader looks at it.

A click on Next (or Previous) on the Replay, Compare or Present page shows a step whose views (``ui.cached.
derived``: the round's pictures, scores, transcript) are computed on a cache miss, which is most of the
server's part of a click (tens of milliseconds for a CoDraw round, more for a model run's panel). After a
step is shown, the page hands the calls that draw its neighbours to one background thread, which computes
them into the same (process-wide) caches; the next click finds them there. A jump with the slider to a
far step still computes its step on the click.

The thread is one per process and takes at most ``MAX_PENDING`` calls at a time (a reader holding the arrow
key down does not queue a backlog); a call already queued is not queued twice; a failing call is dropped (the
click that needs it computes it again and shows its error). Only real browser sessions prefetch (a session
with request headers): ``AppTest`` runs stay single-threaded and deterministic."""
from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Optional

import streamlit as st

from data_access.corpus import Corpus
from ui import cached

MAX_PENDING = 8
THREAD_NAME = "replay-prefetch"

_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=THREAD_NAME)
_pending: set = set()
_lock = threading.Lock()


class _QuietPrefetchThread(logging.Filter):
    """Streamlit warns about every cache call made outside a script run ("missing ScriptRunContext"): from this
    thread that is expected, and would fill the server log."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.threadName or "").startswith(THREAD_NAME)


logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(_QuietPrefetchThread())


def _enabled() -> bool:
    try:
        return bool(st.context.headers)
    except Exception:  # noqa: BLE001 - no session (a bare script): nothing to prefetch for
        return False


def _run(key: tuple, call: Callable, args: tuple) -> None:
    try:
        call(*args)
    except Exception:  # noqa: BLE001 - the click that needs this step computes it again and reports
        pass
    finally:
        with _lock:
            _pending.discard(key)


def prefetch(call: Callable, *args) -> bool:
    """Run ``call(*args)`` (``cached.derived``, ``cached.run_derived`` with their arguments) on the background
    thread, unless it is queued already or the queue is full; whether it was queued."""
    if not _enabled():
        return False
    key = (getattr(call, "__qualname__", repr(call)), *(getattr(a, "__qualname__", a) for a in args))
    with _lock:
        try:
            if key in _pending or len(_pending) >= MAX_PENDING:
                return False
            _pending.add(key)
        except TypeError:  # an argument that cannot key the queue: not worth a background call
            return False
    try:
        _pool.submit(_run, key, call, args)
    except RuntimeError:  # the interpreter is shutting down
        with _lock:
            _pending.discard(key)
        return False
    return True


def neighbours(step: int, n_steps: int) -> list[int]:
    """The steps a reader goes to next from ``step``: the next one first, then the one before."""
    return [s for s in (step + 1, step - 1) if 1 <= s <= n_steps]


def prefetch_neighbours(corpus: Corpus, dialog_id: str, step: int, n_steps: int, function: Callable,
                        round_number: Optional[int] = None, with_round: bool = False) -> None:
    """``cached.derived(function, corpus, dialog_id, s)`` (``..., s, round_number)`` with ``with_round``) for
    the steps next to ``step``."""
    for neighbour in neighbours(step, n_steps):
        args = (function, corpus, dialog_id, neighbour, *((round_number,) if with_round else ()))
        prefetch(cached.derived, *args)
