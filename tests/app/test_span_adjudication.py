"""The Agreement page adjudicates spans: a span disagreement lists each coder's spans, the adjudicator keeps
some of them as the utterance's gold spans, and agreed spans are copied into gold in one click."""
from __future__ import annotations

from data_access.coding import codebook as cb
from data_access.store import CodingStore

from .conftest import open_page

BOOK = cb.Codebook("mentions", (cb.Label("refers-to", scope="span", links_referents=True), cb.Label("hedge", scope="span")))


def _seed(store: CodingStore) -> None:
    book = store.save_codebook(BOOK)
    spans = {"ann": [(0, 9, "refers-to", ["img-a"]), (14, 20, "hedge", [])],
             "bo": [(0, 9, "refers-to", ["img-a"]), (14, 22, "hedge", [])]}
    for coder, items in spans.items():
        for start, end, label, referents in items:
            store.add_annotation("gos", "g1", codebook=book, label=label, coder=coder, round=2, turn=5, utterance=0,
                                 start=start, end=end, referents=referents)
        # a second utterance both coded alike
        store.add_annotation("gos", "g1", codebook=book, label="refers-to", coder=coder, round=2, turn=7,
                             utterance=0, start=4, end=8, referents=["img-b"])


def test_span_disagreements_are_adjudicated_into_gold():
    store = CodingStore()
    _seed(store)
    at = open_page("agreement", coder="judge")
    at.segmented_control(key="agreement_scope").set_value("span").run()
    assert not at.exception
    assert any(h.value == "Disagreements (1)" for h in at.subheader)
    keep = next(m for m in at.multiselect if m.label == "Gold spans of this utterance")
    assert keep.options == [
        "refers-to [0:9] → img-a · by ann, bo", "hedge [14:20] · by ann", "hedge [14:22] · by bo"]
    assert keep.value == [0]  # what every coder put is kept by default
    keep.select(2).run()
    next(b for b in at.button if b.label == "Save spans to gold").click().run()
    assert not at.exception
    gold = store.annotations(layer="gold").sort_values("start")
    assert gold[["turn", "label", "start", "end", "coder"]].values.tolist() == [
        [5, "refers-to", 0, 9, "judge"], [5, "hedge", 14, 22, "judge"]]
    assert [s.value.replace("\\", "") for s in at.success] == ["Saved 2 gold span(s) for g1 · round 2 · turn 5 · utterance 0."]
    next(b for b in at.button if b.label.startswith("Copy spans")).click().run()
    gold = store.annotations(layer="gold")
    assert sorted(gold["turn"].tolist()) == [5, 5, 7]  # the agreed utterance, not the decided one again


def test_the_span_disagreements_let_long_referents_wrap():
    """The coders' columns cut "label [start:end] → referents" after a few characters: they are wide and the
    rows tall enough for the whole cell to wrap."""
    import json

    store = CodingStore()
    book = store.save_codebook(BOOK)
    referents = [f"clipart-{name}" for name in ("sun", "tree", "girl", "boy", "dog", "owl")]
    for coder, shown in (("ann", referents), ("bo", referents[:1])):
        store.add_annotation("gos", "g1", codebook=book, label="refers-to", coder=coder, round=2, turn=5, utterance=0,
                             start=0, end=9, referents=shown)
    at = open_page("agreement", coder="judge")
    at.segmented_control(key="agreement_scope").set_value("span").run()
    table = at.dataframe[-1]
    cell = table.value["ann"].iloc[0]
    assert all(name in cell for name in referents)
    columns = json.loads(table.proto.columns)
    assert columns["ann"]["width"] == "large" and columns["bo"]["width"] == "large"
    assert table.proto.row_height >= 35 + 21 * (-(-len(cell) // 48) - 1) > 35  # one more line per 48 characters
