"""Browse reruns (a filter changed, a sort) copy no corpus out of st.cache_data: only the small dialogs
frame is read, as Replay and Search do (the whole corpus is touched only on a cache miss)."""
from __future__ import annotations

from data_access.common import LoadedCorpus

from .conftest import open_page


def test_a_browse_rerun_copies_no_corpus_out_of_the_cache(monkeypatch):
    at = open_page("browse", corpus="minecraft")
    rows = len(at.dataframe[0].value)
    copies: list[str] = []

    def counting_setstate(self, state):
        copies.append(state.get("corpus", "?") if isinstance(state, dict) else "?")
        self.__dict__.update(state)

    monkeypatch.setattr(LoadedCorpus, "__setstate__", counting_setstate, raising=False)
    at.text_input[0].input("B1").run()
    assert not at.exception
    assert copies == []
    assert 0 < len(at.dataframe[0].value) < rows
    assert at.dataframe[0].value["dialog_id"].str.contains("B1").all()
