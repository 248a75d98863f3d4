"""Whether the browser session that started this script run is still there: the stop of long work (a slice's
evaluation, ``data_access.slices.EvaluationBudget``) whose reader has closed the tab.

Streamlit notices a closed tab when its websocket closes: the runtime's session manager then drops the session
from its active sessions (``Runtime.is_active_session``, safe from any thread) and asks its script to stop. The
script itself only stops at its next Streamlit call, which pure-Python work in the middle of a run never makes;
so such work asks ``session_gone`` (made on the script's thread, where the run's context is) between its steps.
AppTest runs and bare scripts have no runtime: their session is never gone.
"""
from __future__ import annotations

from typing import Callable


def session_gone() -> Callable[[], bool]:
    """A check, cheap enough to call between chunks of work, whether this run's session has ended."""
    from streamlit.runtime import Runtime
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    context = get_script_run_ctx(suppress_warning=True)
    if context is None or not Runtime.exists():
        return _never
    runtime, session_id = Runtime.instance(), context.session_id
    return lambda: not runtime.is_active_session(session_id)


def _never() -> bool:
    return False


__all__ = ["session_gone"]
