"""Search: AND of words, phrases, case and whole-word options, regex (incl. ones only Python re runs),
metacharacter escaping, KWIC context, exact counts with capped rows, friendly errors and deep links."""
from __future__ import annotations

import pandas as pd
import pytest

from data_access.common import UTTERANCE_COLUMNS
from data_access.search import InvalidQuery, SearchIndex, compile_query, search, split_words


def _utterances(corpus, dialog_id, texts, rounds=None):
    n = len(texts)
    return pd.DataFrame({
        "corpus": corpus,
        "dialog_id": dialog_id,
        "round": pd.array(rounds if rounds is not None else [None] * n, dtype="Int64"),
        "turn": list(range(1, n + 1)),
        "speaker": ["A" if i % 2 == 0 else "B" for i in range(n)],
        "role": ["Teller" if i % 2 == 0 else "Drawer" for i in range(n)],
        "text": pd.Series(texts, dtype="str"),
        "time_s": [float(i) for i in range(n)],
    })[UTTERANCE_COLUMNS]


@pytest.fixture(scope="module")
def index() -> SearchIndex:
    return SearchIndex.build([
        _utterances("codraw", "c1", ["Put the sun on the LEFT.", "left of the tree?", "a.b c (x) leftover", "Café au lait"]),
        _utterances("codraw", "c2", ["nothing here", "the sun is big"]),
        _utterances("gos", "g1", ["Left left Left", "sort the sun images", "no"], rounds=[1, 2, 4]),
        _utterances("minecraft", "m1", ["place a red block", "[Builder puts down a red block at X:0 Y:1 Z:0]"]),
    ])


def test_counts_per_corpus_are_exact_and_include_empty_corpora(index):
    result = index.search("left")
    counts = result.counts.set_index("corpus")
    assert counts.loc["codraw", "n_utterances"] == 3  # LEFT, left, leftover
    assert counts.loc["codraw", "n_dialogs"] == 1
    assert counts.loc["gos", "n_utterances"] == 1
    assert counts.loc["minecraft", "n_utterances"] == 0
    assert counts.loc["codraw", "total_utterances"] == 6
    assert counts.loc["codraw", "share"] == pytest.approx(0.5)
    assert result.total == 4 and len(result.hits) == 4 and not result.truncated


def test_case_sensitivity(index):
    assert index.search("left", case_sensitive=True).total == 3  # "left of", "leftover", "Left left Left"
    assert index.search("LEFT", case_sensitive=True).total == 1
    assert index.search("LEFT").total == 4


def test_whole_word_excludes_longer_words(index):
    result = index.search("left", whole_word=True)
    assert result.total == 3
    assert "leftover" not in result.hits["text"].str.cat()
    # a word that is not ASCII-only is still bounded correctly
    assert index.search("caf", whole_word=True).total == 0
    assert index.search("café", whole_word=True).total == 1


def test_words_are_anded_and_phrases_kept_together(index):
    assert index.search("sun the").total == 3
    assert index.search("sun tree").total == 0
    assert index.search('"the sun"').total == 3
    assert index.search('"sun the"').total == 0
    assert split_words('red "sun  is" big "open') == ["red", "sun is", "big", "open"]


def test_word_mode_escapes_metacharacters(index):
    assert index.search("a.b").total == 1
    assert index.search("a?b").total == 0
    assert index.search("(x)").total == 1
    assert index.search("X:0").total == 1
    assert index.search("[Builder").total == 1
    # the same text as a regex means something else
    assert index.search("t.e").total == 0
    assert index.search("t.e", mode="regex").total > 1


def test_regex_mode(index):
    assert index.search(r"^l\w+", mode="regex").total == 2  # "left of", "Left left Left"
    assert index.search(r"red (block|cube)", mode="regex").total == 2
    assert index.search(r"LEFT\.$", mode="regex", case_sensitive=True).total == 1


def test_regex_only_python_can_run_falls_back_with_same_semantics(index):
    result = index.search(r"(?<=the )sun", mode="regex")
    assert result.engine == "python"
    assert result.total == 3
    assert set(result.hits["match"]) == {"sun"}
    # \b on non-ASCII text follows Python's Unicode meaning
    assert index.search(r"\bcaf\b", mode="regex").total == 0


def test_kwic_context_is_exact(index):
    hits = index.search("sun", limit=None, context=8).hits
    first = hits.iloc[0]
    assert (first["left"], first["match"], first["right"]) == ("Put the ", "sun", " on the …")
    for row in hits.itertuples():
        assert row.match.lower() == "sun"
    hits = index.search("left", case_sensitive=True, whole_word=True).hits
    gos = hits[hits["corpus"] == "gos"].iloc[0]
    assert (gos["left"], gos["match"], gos["right"]) == ("Left ", "left", " Left")
    long = SearchIndex.build(_utterances("codraw", "c9", ["x" * 100 + " needle " + "y" * 100])).search("needle", context=10).hits
    assert long.iloc[0]["left"] == "…" + "x" * 9 + " "
    assert long.iloc[0]["right"] == " " + "y" * 9 + "…"


def test_kwic_marks_first_match_with_unicode_before_it():
    index = SearchIndex.build(_utterances("codraw", "u", ["ééé 🙂 left and left"]))
    hit = index.search("left").hits.iloc[0]
    assert (hit["left"], hit["match"], hit["right"]) == ("ééé 🙂 ", "left", " and left")


def test_limit_caps_rows_but_not_counts():
    many = SearchIndex.build(_utterances("codraw", "big", [f"word {i}" for i in range(1200)]))
    result = many.search("word", limit=500)
    assert result.total == 1200 and len(result.hits) == 500 and result.truncated
    assert result.counts["n_utterances"].tolist() == [1200]
    assert result.hits["turn"].tolist() == list(range(1, 501))


def test_invalid_queries_raise_friendly_error(index):
    with pytest.raises(InvalidQuery, match="not a valid regular expression"):
        index.search("(unclosed", mode="regex")
    with pytest.raises(InvalidQuery, match="position"):
        compile_query("a{2,1}", mode="regex")
    with pytest.raises(InvalidQuery):
        index.search("   ")
    # the same text in word mode is fine
    assert index.search("(unclosed").total == 0


def test_links_point_at_turn_and_round(index):
    hits = index.search("sun").hits
    codraw = hits[hits["dialog_id"] == "c1"].iloc[0]
    assert codraw["link"] == "/replay?corpus=codraw&dialog=c1&turn=1"
    gos = hits[hits["corpus"] == "gos"].iloc[0]
    assert gos["link"] == "/replay?corpus=gos&dialog=g1&round=2&turn=2"
    assert gos["round"] == 2 and pd.isna(codraw["round"])


def test_corpus_filter_and_one_off_search(index):
    result = index.search("sun", corpora=["gos"])
    assert result.total == 1 and result.counts["corpus"].tolist() == ["gos"]
    frame = _utterances("codraw", "x", ["alpha beta", "beta"])
    assert search(frame, "beta").total == 2


def test_empty_index():
    empty = SearchIndex.build(pd.DataFrame({c: pd.Series(dtype="object") for c in UTTERANCE_COLUMNS}))
    result = empty.search("anything")
    assert result.total == 0 and result.hits.empty and result.counts.empty
