"""data_access.words: the tokenisation, sub-corpus filters and every statistic, on cases worked out by hand and
against straightforward counts written independently here (plain Python loops over ``tokenize``)."""
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from data_access.words import collocation, concordance, frequency, keyness, stats
from data_access.words.subcorpus import Filters, codes_mask, message_facts, subcorpus_mask
from data_access.words.tokens import TokenIndex, token_spans, tokenize

TEXTS = [
    ("codraw", "d1", None, 1, "Teller", "a big tree on the left ."),
    ("codraw", "d1", None, 1, "Drawer", "is the tree big ?"),
    ("codraw", "d1", None, 2, "Teller", "it 's a small tree , do n't worry"),
    ("codraw", "d2", None, 1, "Teller", "the sun on the left"),
    ("codraw", "d2", None, 1, "Drawer", "ok , the sun"),
    ("gos", "g1", 1, 1, "p1", "It's the tree one, don’t you think?"),
    ("gos", "g1", 1, 2, "p2", "yes the TREE"),
    ("gos", "g1", 2, 1, "p2", "the 'sun' one"),
    ("minecraft", "m1", None, 1, "Architect", "put a red block on the left"),
    ("minecraft", "m1", None, 2, "Builder", "the left?"),
]
ROLES = {"Teller": "Teller", "Drawer": "Drawer", "p1": "Player A", "p2": "Player B", "Architect": "Architect",
         "Builder": "Builder"}


def utterances() -> pd.DataFrame:
    frame = pd.DataFrame(TEXTS, columns=["corpus", "dialog_id", "round", "turn", "speaker", "text"])
    frame["round"] = frame["round"].astype("Int64")
    frame["turn"] = frame["turn"].astype("Int64")
    frame["role"] = frame["speaker"].map(ROLES)
    frame["time_s"] = 0.0
    return frame[["corpus", "dialog_id", "round", "turn", "speaker", "role", "text", "time_s"]]


def dialogs() -> dict:
    return {"codraw": pd.DataFrame({"dialog_id": ["d1", "d2"], "split": ["train", "test"], "final_score": [4.5, 2.0]}),
            "gos": pd.DataFrame({"dialog_id": ["g1"], "split": ["all"]}),
            "minecraft": pd.DataFrame({"dialog_id": ["m1"], "split": ["val"], "outcome_match": [True]})}


@pytest.fixture(scope="module")
def index() -> TokenIndex:
    return TokenIndex.build(utterances())


def plain_tokens(frame: pd.DataFrame, mask=None) -> list[list[str]]:
    mask = np.ones(len(frame), bool) if mask is None else mask
    return [tokenize(t) if keep else [] for t, keep in zip(frame["text"], mask)]


# -- tokenisation -----------------------------------------------------------------------------------------------

def test_tokenize_joins_detached_clitics_and_drops_punctuation():
    assert tokenize("it 's a small tree , do n't worry") == ["it's", "a", "small", "tree", "don't", "worry"]
    assert tokenize("It's the tree one, don’t you think?") == ["it's", "the", "tree", "one", "don't", "you", "think"]
    assert tokenize("ca n't see the 'sun' , I 'm sure") == ["can't", "see", "the", "sun", "i'm", "sure"]
    assert tokenize("a 4x4 window") == ["a", "4x4", "window"]
    assert tokenize("rock ''n'' roll") == ["rock", "n", "roll"]
    assert tokenize(None) == [] and tokenize("?!") == []


def test_the_index_tokenises_as_tokenize_does_and_spans_point_at_the_words(index):
    frame = utterances()
    expected = [w for words in plain_tokens(frame) for w in words]
    assert index.vocab[index.ids].tolist() == expected
    assert list(index.vocab) == sorted(index.vocab)  # ids in alphabetical order
    for row, text in enumerate(frame["text"]):
        spans = token_spans(text)
        assert [tokenize(text[a:b])[0] for a, b in spans] == tokenize(text)
        assert index.row_starts[row + 1] - index.row_starts[row] == len(spans)


# -- sub-corpora --------------------------------------------------------------------------------------------------

def facts():
    rounds = {"gos": pd.DataFrame({"dialog_id": ["g1", "g1"], "round": [1, 2], "mismatches": [1, 0]})}
    crs = pd.DataFrame({"corpus": "codraw", "dialog_id": ["d1", "d2"], "turn": [1, 1], "label": ["CR", "not CR"]})
    mentions = pd.DataFrame({"corpus": "gos", "dialog_id": ["g1", "g1"], "round": [1, 2], "turn": [1, 1],
                             "single": [True, False]})
    return message_facts(utterances(), dialogs(), rounds, crs, mentions)


@pytest.mark.parametrize("filters, rows", [
    (Filters(), list(range(10))),
    (Filters(roles=("Drawer",)), [1, 4]),
    (Filters(corpora=("gos",)), [5, 6, 7]),
    (Filters(splits=("train",)), [0, 1, 2]),
    (Filters(score_min=4.0), [0, 1, 2]),
    (Filters(score_min=1.0, score_max=3.0), [3, 4]),
    (Filters(gos_lock="with"), [5, 6]),
    (Filters(gos_lock="without"), [7]),
    (Filters(build="exact"), [8, 9]),
    (Filters(build="not exact"), []),
    (Filters(cr="CR"), [0, 1]),
    (Filters(cr="CR", roles=("Drawer",)), [1]),
    (Filters(cr="not CR"), [3, 4]),
    (Filters(mention="one"), [5]),
    (Filters(mention="several"), [7]),
])
def test_filters_select_the_messages_worked_out_by_hand(filters, rows):
    assert np.flatnonzero(subcorpus_mask(facts(), filters)).tolist() == rows


def test_code_filters_cover_dialogs_rounds_turns_and_spans():
    table = facts()
    codes = pd.DataFrame({"corpus": ["codraw", "gos", "minecraft", "codraw"], "dialog_id": ["d2", "g1", "m1", "d1"],
                          "round": [None, 2, None, None], "turn": [None, None, 2, 1], "utterance": [None, None, None, 1],
                          "scope": ["dialog", "dialog", "turn", "span"]})
    assert np.flatnonzero(codes_mask(table, codes)).tolist() == [1, 3, 4, 7, 9]
    store_frame = codes.assign(label=["x", "x", "x", "y"], coder=["ann", "ann", "bob", "ann"],
                               layer=["coding", "coding", "gold", "coding"], codebook="book", kind="label")
    mask = subcorpus_mask(table, Filters(code_label="x", code_coder="ann"),
                          store_frame[(store_frame.label == "x") & (store_frame.coder == "ann")])
    assert np.flatnonzero(mask).tolist() == [3, 4, 7]
    from data_access.words.subcorpus import select_codes
    assert select_codes(store_frame, Filters(code_label="x", code_coder="gold"))["dialog_id"].tolist() == ["m1"]
    assert Filters(roles=("Drawer",), cr="CR").describe() == "role Drawer; CoDraw rounds labelled CR"


# -- frequency ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("filters", [Filters(), Filters(roles=("Teller", "Player B")), Filters(corpora=("gos",))])
def test_frequency_lists_equal_a_plain_count(index, n, filters):
    frame, mask = utterances(), subcorpus_mask(facts(), filters)
    counts, dialogs_of = Counter(), {}
    for (corpus, dialog), words in zip(zip(frame["corpus"], frame["dialog_id"]), plain_tokens(frame, mask)):
        for k in range(len(words) - n + 1):
            gram = " ".join(words[k:k + n])
            counts[gram] += 1
            dialogs_of.setdefault(gram, set()).add((corpus, dialog))
    total = sum(len(w) for w in plain_tokens(frame, mask))
    table = frequency.frequency_list(index, mask if not filters.is_empty() else None, n, top=None)
    assert dict(zip(table["word"], table["count"])) == dict(counts)
    assert dict(zip(table["word"], table["dialogs"])) == {g: len(d) for g, d in dialogs_of.items()}
    assert np.allclose(table["per_10k"], table["count"] / total * 10_000)
    assert table["count"].is_monotonic_decreasing
    ties = table.groupby("count", sort=False)["word"].apply(list)
    assert all(words == sorted(words) for words in ties)


def test_frequency_worked_example(index):
    table = frequency.frequency_list(index, None, 1, top=3)
    # "the" occurs 10 times in 46 words (4 dialogs), "left" 4 times, "tree" 4 times (alphabetical tie)
    assert table[["word", "count", "dialogs"]].values.tolist() == [["the", 10, 4], ["tree", 5, 2], ["left", 4, 3]]
    assert table["per_10k"].iloc[0] == pytest.approx(10 / len(index) * 10_000)
    assert len(index) == 46


# -- concordance --------------------------------------------------------------------------------------------------

def test_concordance_finds_every_occurrence_and_sorts_by_context(index):
    hits = concordance.find(index, "the")
    assert len(hits) == 10
    by_right = concordance.lines(index, concordance.sort_hits(index, hits, ("R1", "R2")))
    # R1 words: left ×4 (then R2: "", "", ".", ...), sun ×3, tree ×3; "" (nothing after) sorts first
    assert by_right["match"].str.lower().tolist() == ["the"] * 10
    first_right = [r.split()[0].strip("'?.").lower() if r.split() else "" for r in by_right["right"]]
    assert first_right == sorted(first_right)
    by_left = concordance.sort_hits(index, hits, ("L1",))
    left_words = concordance.context_ids(index, by_left, "L1")
    assert left_words.tolist() == sorted(left_words.tolist())
    assert (left_words == -1).sum() == 3  # "the" begins three messages


def test_concordance_of_a_phrase_within_messages_and_filters(index):
    hits = concordance.find(index, "on the left")
    assert len(hits) == 3
    rows = concordance.lines(index, hits)
    assert rows["match"].tolist() == ["on the left"] * 3
    assert rows.loc[0, "left"] == "a big tree " and rows.loc[0, "right"] == " ."
    assert rows.loc[0, "link"] == "/replay?corpus=codraw&dialog=d1&turn=1&hl=on+the+left"
    drawer = subcorpus_mask(facts(), Filters(corpora=("gos",)))
    assert concordance.lines(index, concordance.find(index, "don't", drawer))["match"].tolist() == ["don’t"]
    assert concordance.lines(index, concordance.find(index, "don't"))["match"].tolist() == ["do n't", "don’t"]
    assert len(concordance.find(index, "left the")) == 0  # never across two messages
    assert len(concordance.find(index, "unheard")) == 0


def test_concordance_context_is_cut_to_words(index):
    hits = concordance.find(index, "worry")
    line = concordance.lines(index, hits, words=2)
    assert line.loc[0, "left"] == "…tree , do n't " and line.loc[0, "right"] == ""


# -- statistics ---------------------------------------------------------------------------------------------------

def test_g2_of_a_table_worked_by_hand():
    # [[50, 10], [9950, 9990]]: every expected count is a row total × a column total / 20,000
    by_hand = 2 * (50 * math.log(50 / 30) + 10 * math.log(10 / 30) + 9950 * math.log(9950 / 9970)
                   + 9990 * math.log(9990 / 9970))
    assert by_hand == pytest.approx(29.1906, abs=1e-3)
    assert stats.g2_table(50, 10, 9950, 9990) == pytest.approx(by_hand)
    assert stats.g2_table(5, 5, 95, 95) == pytest.approx(0.0)
    assert stats.g2_table(0, 10, 100, 90) > 0  # 0 · ln 0 = 0


def test_chi2_p_values_match_the_table():
    # the chi-square(1) critical values: 3.841 → p 0.05, 6.635 → 0.01, 10.828 → 0.001
    assert stats.chi2_1df_p([3.841, 6.635, 10.828]).tolist() == pytest.approx([0.05, 0.01, 0.001], abs=2e-5)


def test_keyness_worked_example():
    g2, p, ratio = keyness.keyness_scores(np.array([50, 0]), np.array([10, 4]), 10_000, 10_000)
    assert g2[0] == pytest.approx(29.1906, abs=1e-3)
    assert ratio[0] == pytest.approx(math.log2(5))  # five times as frequent in A
    assert ratio[1] == pytest.approx(math.log2(0.5 / 4))  # zero taken as 0.5
    assert p[0] == pytest.approx(math.erfc(math.sqrt(g2[0] / 2)))


def test_keyness_between_sub_corpora_equals_a_plain_count(index):
    table = facts()
    a, b = subcorpus_mask(table, Filters(corpora=("codraw",))), subcorpus_mask(table, Filters(corpora=("gos", "minecraft")))
    result = keyness.keyness(index, a, b, min_count=1, top=None)
    frame = utterances()
    count_a = Counter(w for words in plain_tokens(frame, a) for w in words)
    count_b = Counter(w for words in plain_tokens(frame, b) for w in words)
    c, d = sum(count_a.values()), sum(count_b.values())
    row = result.set_index("word").loc["the"]
    assert (row["count_a"], row["count_b"]) == (count_a["the"], count_b["the"])
    x, y = count_a["the"], count_b["the"]
    expected = 2 * sum(o * math.log(o / e) for o, e in [
        (x, c * (x + y) / (c + d)), (y, d * (x + y) / (c + d)),
        (c - x, c * (c + d - x - y) / (c + d)), (d - y, d * (c + d - x - y) / (c + d))] if o)
    assert row["g2"] == pytest.approx(expected)
    assert set(result["word"]) == set(count_a) | set(count_b)
    assert result["g2"].is_monotonic_decreasing
    assert result.set_index("word").loc["sun", "key_in"] in ("A", "B")


def test_collocates_equal_a_plain_window_count(index):
    frame = utterances()
    words_per_message = plain_tokens(frame)
    together, span = Counter(), 0
    for words in words_per_message:
        for k, word in enumerate(words):
            if word == "the":
                window = words[max(0, k - 2):k] + words[k + 1:k + 3]
                together.update(window)
                span += len(window)
    table = collocation.collocates(index, "the", None, window=2, min_count=1, top=None)
    assert dict(zip(table["word"], table["cooccurrences"])) == dict(together)
    frequency_all = Counter(w for words in words_per_message for w in words)
    row = table.set_index("word").loc["left"]
    fxy, fx, fy, n = together["left"], 10, frequency_all["left"], len(index)
    assert row["log_dice"] == pytest.approx(14 + math.log2(2 * fxy / (fx + fy)))  # 14 + log2(2·4 / (10 + 4)) = 13.19
    assert row["log_dice"] == pytest.approx(13.1926, abs=1e-4)
    assert row["g2"] == pytest.approx(stats.g2_table(fxy, span - fxy, fy - fxy, n - span - (fy - fxy)))
    assert (row["left"], row["right"]) == (0, 4)


def test_regular_expression_matches_become_hits_on_the_words_they_touch(index):
    from data_access.search import SearchIndex, compile_query

    search = SearchIndex.build(utterances())
    result = search.search("t.e", mode="regex", limit=0)
    rows, starts, ends = search.match_spans(result.query, result.rows)
    hits = concordance.from_spans(index, rows, starts, ends)
    lines = concordance.lines(index, hits)
    # "t.e" matches "the" (ten times) and the "tre" of "tree" (five times, "TREE" too): each widened to its word
    assert sorted(set(lines["match"].str.lower())) == ["the", "tree"]
    assert len(hits) == 15
    whole = search.match_spans(compile_query("the"), np.arange(len(search)))
    assert len(whole[0]) == 10  # every occurrence, not only the first in each message
    sorted_hits = concordance.sort_hits(index, hits, ("R1",))
    assert len(sorted_hits) == 15 and sorted_hits.lengths.tolist() == [1] * 15


@pytest.mark.shared
@pytest.mark.parametrize("name, folder", [("codraw", "codraw"), ("gos", "game-of-sorts"), ("minecraft", "minecraft")])
def test_the_index_and_tokenize_give_the_same_words_on_the_real_corpora(shared_data, real_cache, name, folder):
    from data_access.corpora import load_path

    frame = load_path(name, shared_data / folder, cache_root=real_cache).utterances.reset_index(drop=True)
    index = TokenIndex.build(frame)
    words = [tokenize(text) for text in frame["text"]]  # each message tokenised once for both checks
    assert index.vocab[index.ids].tolist() == [w for message in words for w in message]
    assert all(len(token_spans(t)) == len(message) for t, message in zip(frame["text"], words))
