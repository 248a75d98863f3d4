"""Summaries kept in the Parquet cache entry: the Overview's corpus profiles read back equal the computed
ones (so its tables and charts are the same), a later start reads them without reading any frame, a damaged
or outdated summary is recomputed, and the Data page's rows per frame come from the manifest."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from data_access import cache
from data_access.common import CORPUS_NAMES
from data_access.corpora import cached_summary, load_configured
from data_access.figures import overview


def same_profile(a: overview.CorpusProfile, b: overview.CorpusProfile) -> None:
    assert (a.corpus, a.dialogs, a.messages, a.replay_steps, a.tokens, a.vocabulary) == \
           (b.corpus, b.dialogs, b.messages, b.replay_steps, b.tokens, b.vocabulary)
    pd.testing.assert_series_equal(a.messages_per_dialog, b.messages_per_dialog)
    pd.testing.assert_series_equal(a.tokens_per_message, b.tokens_per_message)


@pytest.mark.parametrize("splits", [(), ("test",)])
def test_cached_profiles_equal_the_computed_ones_and_give_the_same_figures(splits):
    computed = [overview.corpus_profile(load_configured(name), splits) for name in CORPUS_NAMES]
    first = [overview.cached_corpus_profile(load_configured(name), splits) for name in CORPUS_NAMES]  # computed, stored
    again = [overview.cached_corpus_profile(load_configured(name), splits) for name in CORPUS_NAMES]  # read back
    for a, b, c in zip(computed, first, again):
        same_profile(a, b)
        same_profile(a, c)
    pd.testing.assert_frame_equal(overview.overview_table(computed), overview.overview_table(again))
    for chart, read in zip(overview.overview_charts(computed), overview.overview_charts(again)):
        assert chart.caption == read.caption and chart.figure.to_json() == read.figure.to_json()
        pd.testing.assert_frame_equal(chart.data, read.data)
    assert overview.length_distribution_chart(computed).figure.to_json() == \
           overview.length_distribution_chart(again).figure.to_json()


def test_a_later_start_reads_the_profile_without_any_frame(monkeypatch):
    overview.cached_corpus_profile(load_configured("codraw"))
    loaded = load_configured("codraw")  # as after a restart: a cache hit, its frames not read yet
    assert isinstance(loaded.frames, cache.LazyFrames)
    monkeypatch.setattr(overview, "corpus_profile", lambda *args: pytest.fail("computed again"))
    profile = overview.cached_corpus_profile(loaded)
    assert profile.dialogs == len(load_configured("codraw").dialogs)
    assert loaded.frames._frames == {}  # nothing was read from Parquet
    rows = overview.frame_rows(loaded)
    assert loaded.frames._frames == {}
    fresh = load_configured("codraw")
    assert rows == {name: len(fresh.frames[name]) for name in fresh.frames}


def test_a_damaged_summary_is_recomputed_and_an_uncached_corpus_computes():
    loaded = load_configured("minecraft")
    entry = cache.entry_of(loaded.frames)
    calls = []

    def compute():
        calls.append(1)
        return {"n": 1}

    assert cached_summary(loaded, "test-summary", compute) == {"n": 1}
    assert cached_summary(loaded, "test-summary", compute) == {"n": 1} and len(calls) == 1
    file = entry / cache.SUMMARIES / "test-summary.json"
    stored = json.loads(file.read_text())
    stored["value"]["n"] = 2  # tampered: the digest no longer matches
    file.write_text(json.dumps(stored))
    assert cached_summary(loaded, "test-summary", compute) == {"n": 1} and len(calls) == 2
    with pytest.raises(ValueError):
        cache.read_summary(entry, "../escape")
    plain = type(loaded)("minecraft", "x", True, {"dialogs": loaded.dialogs, "utterances": loaded.utterances})
    assert cache.entry_of(plain.frames) is None
    assert cached_summary(plain, "test-summary", compute) == {"n": 1} and len(calls) == 3


def test_frames_just_built_know_their_entry(tmp_path):
    from data_access.corpora import load_path

    built = load_path("gos", None, cache_root=tmp_path)  # a miss: built now and written
    assert not built.from_cache
    entry = cache.entry_of(built.frames)
    assert entry is not None and (entry / cache.MANIFEST).is_file()
    assert overview.frame_rows(built) == overview.frame_rows(load_path("gos", None, cache_root=tmp_path))


def test_the_splits_and_the_data_page_counts_are_read_back_without_any_frame():
    from data_access.analysis.splits import available_splits, splits_in

    computed = {name: (tuple(splits_in(load_configured(name).dialogs)), overview.loaded_counts({name: load_configured(name)}))
                for name in CORPUS_NAMES}
    for name in CORPUS_NAMES:
        available_splits(load_configured(name))  # computed and stored
    for name, (splits, counts) in computed.items():
        loaded = load_configured(name)  # as after a restart: a cache hit, its frames not read yet
        assert isinstance(loaded.frames, cache.LazyFrames)
        assert available_splits(loaded) == splits
        read = overview.loaded_counts({name: loaded})
        assert loaded.frames._frames == {}  # nothing was read from Parquet
        columns = ["corpus", "dialogs", "rounds", "replay_steps", "messages"]
        pd.testing.assert_frame_equal(read[columns], counts[columns])
