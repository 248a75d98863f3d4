"""The cross-corpus overview numbers on small frames whose counts are known."""
from __future__ import annotations

import pandas as pd

from data_access.common import LoadedCorpus
from data_access.figures import overview


def corpus(name: str = "minecraft", splits=("train", "test", "test")) -> LoadedCorpus:
    dialogs = pd.DataFrame({"corpus": name, "dialog_id": ["a", "b", "c"], "split": list(splits),
                            "n_steps": [5, 3, 0], "n_utterances": [2, 1, 0], "duration_s": [1.0, 2.0, 3.0]})
    utterances = pd.DataFrame({"corpus": name, "dialog_id": ["a", "a", "b"], "round": pd.array([pd.NA] * 3, dtype="Int64"),
                               "turn": [1, 2, 1], "speaker": "x", "role": "x",
                               "text": ["Put a RED block", "put  it there, don't", "red? Red!"], "time_s": 0.0})
    return LoadedCorpus(name, "demo", True, {"dialogs": dialogs, "utterances": utterances})


def test_whitespace_tokens_and_vocabulary():
    text = pd.Series(["Put a RED block", "put  it there, don't", "red? Red!", None])
    assert overview.whitespace_tokens(text).tolist() == [4, 4, 2, 0]
    assert overview.vocabulary(text) == {"put", "a", "red", "block", "it", "there", "don't"}


def test_corpus_profile_counts():
    profile = overview.corpus_profile(corpus())
    assert (profile.dialogs, profile.messages, profile.tokens, profile.vocabulary, profile.replay_steps) == (3, 3, 10, 7, 8)
    assert profile.messages_per_dialog.tolist() == [2, 1, 0]  # the dialog without messages counts


def test_corpus_profile_restricted_to_splits():
    profile = overview.corpus_profile(corpus(), ("test",))
    assert (profile.dialogs, profile.messages, profile.tokens, profile.vocabulary) == (2, 1, 2, 1)


def test_overview_table_and_charts():
    single_split = corpus("gos", ("all", "all", "all"))
    profiles = [overview.corpus_profile(corpus("codraw")), overview.corpus_profile(single_split, ("test",))]
    table = overview.overview_table(profiles).set_index("corpus")
    assert table.loc["CoDraw", "messages_per_dialog"] == 1.0
    assert table.loc["CoDraw", "tokens_per_message"] == 10 / 3
    assert table.loc["A Game Of Sorts", "dialogs"] == 3  # a single-split corpus ignores the split filter
    charts = overview.overview_charts(profiles)
    assert [c.key for c in charts] == ["overview_dialogs", "overview_messages_per_dialog", "overview_tokens_per_message",
                                       "overview_vocabulary"]
    assert charts[3].data["vocabulary"].tolist() == [7, 7]
    assert "6 dialogs" in charts[0].caption
    assert overview.length_distribution_chart(profiles).caption.startswith("Distribution of messages per dialog")


def test_log_axes_are_labelled_with_plain_numbers():
    from data_access.analysis.charts import log_ticks

    assert log_ticks(3, 460) == [2, 5, 10, 20, 50, 100, 200, 500]
    assert log_ticks(15, 9993) == [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000]


def test_a_corpus_with_few_dialogs_stays_visible_beside_a_large_one():
    from data_access.figures.overview import _bar

    class P:
        def __init__(self, corpus):
            self.corpus = corpus

    chart = _bar([P("codraw"), P("gos"), P("minecraft")], [9993, 15, 547], "k", "dialogs", "c", ",.0f")
    axis = chart.figure.layout.yaxis
    assert axis.type == "log"
    assert list(axis.ticktext) == ["10", "20", "50", "100", "200", "500", "1,000", "2,000", "5,000", "10,000"]
    assert axis.range[0] < 1.1  # log10(15) = 1.18: the 15-dialog bar rises above the axis floor
    assert list(chart.figure.data[0].text) == ["9,993", "15", "547"] and chart.figure.data[0].textposition == "outside"


def test_every_overview_column_is_named_and_explained_by_the_glossary():
    """The median column once said "steps" while it counted messages: each column must be a glossary entry."""
    from data_access.common import COLUMN_HELP, COLUMN_LABELS

    table = overview.overview_table([overview.corpus_profile(corpus())])
    assert table.loc[0, "median_messages_per_dialog"] == 1.0  # messages per dialog [2, 1, 0]
    assert all(name in COLUMN_LABELS and name in COLUMN_HELP for name in table.columns)


def test_loaded_counts_per_corpus():
    codraw = corpus("codraw")
    codraw.frames["dialogs"]["n_rounds"] = [5, 3, 0]
    codraw.load_seconds, codraw.from_cache = 1.234, True
    counts = overview.loaded_counts({"codraw": codraw, "minecraft": corpus()}).set_index("corpus")
    assert counts.loc["CoDraw"].tolist() == [3, 8, 8, 3, 1.23, "cache", 0]
    assert pd.isna(counts.loc["Minecraft Collaborative Building", "rounds"])  # no rounds: shown empty, not 0
    assert counts.loc["Minecraft Collaborative Building", "loaded_from"] == "parsed"
