"""Adjudication into the gold layer, against both store backends: spans of an utterance (candidates, a decision
replacing an earlier one, agreed spans copied) and turn labels."""
from __future__ import annotations

import pytest

from data_access.coding import adjudication, compare
from data_access.coding import codebook as cb
from data_access.store import CodingStore

BOOK = cb.Codebook("mentions", (
    cb.Label("refers-to", scope="span", links_referents=True),
    cb.Label("hedge", scope="span"),
    cb.Label("CR", scope="turn"),
))
UTTERANCE = ("gos", "g1", 2, 5, 0)


@pytest.fixture
def store(store_target) -> CodingStore:
    return CodingStore(store_target)


def _span(store, book, coder, start, end, label="refers-to", referents=(), unit=UTTERANCE, text=None):
    corpus, dialog, round_, turn, utterance = unit
    store.add_annotation(corpus, dialog, codebook=book, label=label, coder=coder, round=round_, turn=turn,
                         utterance=utterance, start=start, end=end, span_text=text, referents=list(referents))


def _seed(store) -> cb.Codebook:
    book = store.save_codebook(BOOK)
    _span(store, book, "ann", 0, 9, referents=["img-a"], text="the puppy")
    _span(store, book, "bo", 0, 9, referents=["img-a"])
    _span(store, book, "ann", 14, 20, label="hedge")
    _span(store, book, "bo", 14, 22, label="hedge")
    other = ("gos", "g1", 2, 6, 0)
    _span(store, book, "ann", 3, 7, referents=["img-b"], unit=other)
    _span(store, book, "bo", 3, 7, referents=["img-c"], unit=other)  # same offsets, another image: no agreement
    return book


def _frame(store):
    return compare.coded_sources(store.annotations(codebook="mentions"))


def test_candidates_are_the_distinct_spans_with_who_put_them(store):
    _seed(store)
    candidates = adjudication.span_candidates(_frame(store), UTTERANCE)
    assert [(c.label, c.start, c.end, c.referents, c.coders) for c in candidates] == [
        ("refers-to", 0, 9, ("img-a",), ("ann", "bo")),
        ("hedge", 14, 20, (), ("ann",)),
        ("hedge", 14, 22, (), ("bo",)),
    ]
    assert candidates[0].span_text == "the puppy"  # taken from the coder who recorded it
    assert "refers-to [0:9] “the puppy” → img-a · by ann, bo" == candidates[0].describe()


def test_a_decision_replaces_the_gold_spans_of_its_utterance_only(store):
    book = _seed(store)
    frame = _frame(store)
    candidates = adjudication.span_candidates(frame, UTTERANCE)
    assert adjudication.save_gold_spans(store, book, UTTERANCE, candidates[:2], "judge") == 2
    assert adjudication.save_gold_spans(store, book, UTTERANCE, [candidates[0], candidates[2]], "judge") == 2
    gold = store.annotations(layer="gold")
    assert sorted(zip(gold["label"], gold["start"], gold["end"])) == [("hedge", 14, 22), ("refers-to", 0, 9)]
    assert set(gold["coder"]) == {"judge"} and gold["referents"].map(tuple).tolist().count(("img-a",)) == 1
    assert len(store.annotations(layer="gold", include_deleted=True)) == 4  # the replaced ones stay in history
    # gold is one more coder for the statistics
    assert compare.GOLD in set(_frame(store)["coder"])


def test_agreed_spans_need_same_offsets_label_and_referents(store):
    book = _seed(store)
    agreed = adjudication.agreed_spans(_frame(store), ["ann", "bo"])
    assert list(agreed) == [UTTERANCE]
    assert [(s.label, s.start, s.end) for s in agreed[UTTERANCE]] == [("refers-to", 0, 9)]
    assert adjudication.copy_agreed_spans(store, book, _frame(store), ["ann", "bo"], "judge") == 1
    # an utterance gold has decided is not touched again
    assert adjudication.copy_agreed_spans(store, book, _frame(store), ["ann", "bo"], "judge") == 0
    assert len(store.annotations(layer="gold")) == 1


def test_turn_labels_replace_an_earlier_decision(store):
    book = store.save_codebook(BOOK)
    for coder in ("ann", "bo"):
        store.add_annotation("codraw", "d1", codebook=book, label="CR", coder=coder, turn=3)
    store.add_annotation("codraw", "d1", codebook=book, label="CR", coder="ann", turn=4)
    adjudication.save_gold_labels(store, book, "turn", "codraw", "d1", None, 4, ["CR"], "judge")
    adjudication.save_gold_labels(store, book, "turn", "codraw", "d1", None, 4, [], "judge")  # no CR after all
    assert store.annotations(layer="gold").empty
    frame = _frame(store)
    assert adjudication.copy_agreed_labels(store, book, frame[frame["scope"] == "turn"], ["ann", "bo"], "judge") == 1
    assert store.annotations(layer="gold")["turn"].tolist() == [3]


def test_a_queue_sets_the_units_and_who_finished_them(store):
    """Queue units: a coder's value is missing until they mark the item done, then "none" if unlabelled."""
    from data_access.coding import agreement as ag

    book = store.save_codebook(BOOK)
    store.create_queue("pilot", [("codraw", "d1", None, t) for t in (1, 2, 3)], ["ann", "bo"])
    store.add_annotation("codraw", "d1", codebook=book, label="CR", coder="ann", turn=1)
    store.add_annotation("codraw", "d1", codebook=book, label="CR", coder="bo", turn=1)
    items = store.queue_items("pilot")
    for row in items.itertuples(index=False):
        if row.coder == "ann" or row.turn == 1:  # bo has finished only turn 1
            store.set_done(int(row.id))
    frame = _frame(store)
    frame = frame[frame["scope"] == "turn"]
    units, assigned = compare.queue_units(store.queue_items("pilot"), frame, "turn")
    assert units == [("codraw", "d1", None, 1), ("codraw", "d1", None, 2), ("codraw", "d1", None, 3)]
    assert assigned == {"ann": set(units), "bo": {units[0]}}
    matrix, _ = ag.reliability_matrix(frame, ["ann", "bo"], units, assigned=assigned)
    assert matrix == [[("CR",), ("none",), ("none",)], [("CR",), None, None]]
    # a queue of dialogs: the turns anyone labelled in them, for the coders who finished the dialog
    store.create_queue("dialogs", [("codraw", "d1", None, None)], ["ann", "bo"])
    first = store.queue_items("dialogs", coder="ann")["id"].iloc[0]
    store.set_done(int(first))
    units, assigned = compare.queue_units(store.queue_items("dialogs"), frame, "turn")
    assert units == [("codraw", "d1", None, 1)] and assigned == {"ann": {("codraw", "d1", None, 1)}}
