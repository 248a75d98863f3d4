"""ui.cached: its cache keys are named values, its derived caches take the function itself (and refuse one
without a name of its own at the call), and the run folders are listed at most once per script run."""
from __future__ import annotations

import dataclasses

import pytest

from tests.app.conftest import run_function
from ui import cached
from ui.shell.corpus_edge import resolve

CODRAW = resolve("codraw")


def test_keys_are_frozen_values_with_named_fields():
    key = cached.CorpusKey("codraw", None, None)
    assert key.is_demo and key == cached.CorpusKey("codraw", None, None) and hash(key) == hash(cached.CorpusKey("codraw", None, None))
    run = cached.RunKey("codraw", "demo-run", "/runs/a.jsonl", True, 7)
    assert (run.corpus, run.run, run.file, run.is_demo, run.stamp) == ("codraw", "demo-run", "/runs/a.jsonl", True, 7)
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.file = "elsewhere"  # type: ignore[misc]


def test_a_lambda_is_refused_with_a_clear_error_at_the_call():
    with pytest.raises(TypeError, match="defined with def at module level.*<lambda>"):
        cached.derived(lambda loaded: 1, CODRAW)
    with pytest.raises(TypeError, match="module level"):
        cached.shared(lambda loaded: 1, CODRAW)

    def nested(loaded):
        return 1

    with pytest.raises(TypeError, match="<locals>"):
        cached.derived(nested, CODRAW)


def test_derived_caches_take_the_function_itself_and_keep_functions_apart():
    def script():
        import streamlit as st

        from ui import cached
        from ui.shell.corpus_edge import resolve

        codraw = resolve("codraw")
        st.session_state["ready"] = cached.derived(cached._is_loaded, codraw)
        st.session_state["dialogs"] = len(cached.dialogs_frame(codraw))
        st.session_state["again"] = cached.derived(cached._is_loaded, codraw)

    at = run_function(script)
    assert at.session_state["ready"] is True and at.session_state["again"] is True
    assert at.session_state["dialogs"] > 0


def test_run_folders_are_listed_once_per_script_run(monkeypatch):
    import data_access.runs as runs

    listings = []
    real = runs.available_runs

    def counting(*args, **kwargs):
        listings.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(runs, "available_runs", counting)

    def script():
        import streamlit as st

        from ui import cached
        from ui.shell.corpus_edge import resolve

        codraw = resolve("codraw")
        keys = [cached.run_keys(codraw) for _ in range(5)]
        st.session_state["same"] = all(k == keys[0] for k in keys)
        st.session_state["fields"] = sorted({(k.corpus, k.run, k.is_demo) for k in keys[0].values()})
        keys[0].clear()  # a caller's copy: the next call still sees every run
        st.session_state["after_clear"] = len(cached.run_keys(codraw))
        cached.forget_run_keys(codraw)
        cached.run_keys(codraw)

    at = run_function(script)
    assert at.session_state["same"] and at.session_state["fields"]
    assert all(corpus == "codraw" for corpus, _run, _demo in at.session_state["fields"])
    assert at.session_state["after_clear"] == len(at.session_state["fields"])
    assert len(listings) == 2  # once, then once more after forget_run_keys
    at.run()
    assert len(listings) == 4  # a new script run lists the folders again
