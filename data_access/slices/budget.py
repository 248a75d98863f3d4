"""One time budget for evaluating a whole slice, shared by all of its tests, and the stop of an evaluation whose
reader is gone (docs/hardening.md, "Slices").

Each ``text()`` / ``re()`` test is stopped past the search's own 5 s, but a slice holds up to 200 tests: forty
slow ``re()`` tests held a server core for 61 s, and went on after the tab that asked for them was closed. An
``EvaluationBudget`` is made once per evaluation and checked before each test and between the chunks of
utterances a ``text()`` / ``re()`` test matches (``SearchIndex.search``'s ``check``); past its deadline the
evaluation raises ``SliceTooSlow``, and as soon as its ``stopped`` callable says the asker is gone (the app:
the browser session has ended) ``SliceStopped``. Both are ``SliceError``: said, never a traceback.
"""
from __future__ import annotations

import time
from typing import Callable, Optional

from .grammar import SliceError

# A whole slice's evaluation, every test together: a slice of columns takes milliseconds, one re() over the full
# CoDraw corpus's 141,844 utterances under 2 s; the SQL console's query has the same 10 s.
EVALUATION_SECONDS = 10.0


class SliceTooSlow(SliceError):
    """The slice's tests together ran past the evaluation budget."""


class SliceStopped(SliceError):
    """The evaluation was stopped because whoever asked for it is gone (the browser session ended)."""


class EvaluationBudget:
    """The deadline of one slice's evaluation and the question whether to go on at all."""

    def __init__(self, seconds: Optional[float] = None, *, stopped: Optional[Callable[[], bool]] = None,
                 clock: Callable[[], float] = time.monotonic):
        self.seconds = float(EVALUATION_SECONDS if seconds is None else seconds)
        self.stopped = stopped
        self.clock = clock
        self.started = clock()
        self.tests = 0  # tests begun, for the message

    @property
    def elapsed(self) -> float:
        return self.clock() - self.started

    def begin(self, test: str) -> None:
        """Before a test (``test``: its text, for the message)."""
        self.tests += 1
        self.check(test)

    def check(self, test: str = "") -> None:
        """``SliceStopped`` when the asker is gone, ``SliceTooSlow`` past the deadline; else nothing."""
        if self.stopped is not None and self.stopped():
            raise SliceStopped(f"the evaluation was stopped after {self.elapsed:.1f} s ({self.tests:,} test(s) "
                               "begun): the session that asked for it is gone")
        if self.elapsed > self.seconds:
            at = f" at {test if len(test) <= 40 else test[:39] + '…'}" if test else ""
            raise SliceTooSlow(f"its tests took more than {self.seconds:g} s in all (stopped{at}, test "
                               f"{self.tests:,}); use fewer or simpler text() and re() tests")


__all__ = ["EVALUATION_SECONDS", "EvaluationBudget", "SliceStopped", "SliceTooSlow"]
