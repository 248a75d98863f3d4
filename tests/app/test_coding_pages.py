"""AppTests of the coding pages: coding on the Replay (one-click labels, spans by offsets, referent links),
Codebooks (edit saves a new version), Agreement (statistics, disagreements, adjudication), Coding queue."""
from __future__ import annotations

import pandas as pd

from data_access.coding import codebook as cb
from data_access.corpora import demo_path, load_path
from data_access.store import CodingStore

from .conftest import open_page

BOOK = cb.Codebook("clarification", (
    cb.Label("CR", scope="turn", colour="#d62728", key="c"),
    cb.Label("refers-to", scope="span", links_referents=True, key="r"),
    cb.Label("success", scope="dialog"),
))


def _codraw_dialog() -> tuple[str, str]:
    loaded = load_path("codraw", demo_path("codraw"))
    dialog = loaded.dialogs["dialog_id"].iloc[0]
    teller = loaded.utterances[(loaded.utterances["dialog_id"] == dialog) & (loaded.utterances["turn"] == 2)]
    return dialog, str(teller["text"].iloc[0])


def test_replay_codes_turn_labels_spans_and_referents():
    store = CodingStore()
    store.save_codebook(BOOK)
    dialog, text = _codraw_dialog()
    at = open_page("pages/replay.py", corpus="codraw", dialog=dialog, turn="2", coder="ann")
    assert any(e.label == "Coder (your name)" and e.value == "ann" for e in at.text_input)
    next(b for b in at.button if b.label == "CR [c]").click().run()
    assert not at.exception
    frame = store.annotations()
    assert frame[["label", "scope", "turn", "coder"]].values.tolist() == [["CR", "turn", 2, "ann"]]
    assert any("Saved CR" in s.value for s in at.success)
    assert any(b.label == "✅ CR [c]" for b in at.button)  # shown as applied

    form_start = next(n for n in at.number_input if n.label.startswith("Start"))
    form_end = next(n for n in at.number_input if n.label.startswith("End"))
    form_start.set_value(0)
    form_end.set_value(5)
    next(b for b in at.button if b.label == "Save span").click().run()
    assert not at.exception
    span = store.annotations(coder="ann").iloc[-1]
    assert (span["scope"], span["start"], span["end"], span["span_text"]) == ("span", 0, 5, text[:5])
    picker = next(m for m in at.multiselect if m.label.startswith("Referents"))
    assert picker.options  # the target scene's clip art
    picker.select(picker.options[0]).run()
    assert not at.exception
    assert len(store.get_annotation(int(span["id"]))["referents"]) == 1

    next(b for b in at.button if b.label == "✅ CR [c]").click().run()  # a second click removes nothing
    assert any("CR is already labelled here" in e.value for e in at.error)
    assert list(store.annotations()["label"]).count("CR") == 1
    cr = int(store.annotations().set_index("label").loc["CR", "id"])
    at.button(key=f"coding_delete_{cr}").click().run()  # taking it off is its own action
    assert "CR" not in set(store.annotations()["label"])


def player_data(at) -> list[dict]:
    from tests.app.transcript_lines import player_data as data

    return data(at)


def column_data(at) -> list[dict]:
    """What the coding column (``ui.coding.workbench``) is sent, as its JavaScript receives it."""
    import json

    return [data for data in (json.loads(e.proto.json or "{}") for e in at.get("bidi_component")) if "labels" in data]


def test_the_coding_column_holds_the_dialogs_labels_and_text_and_opens_beside_the_step():
    store = CodingStore()
    store.save_codebook(BOOK)
    dialog, text = _codraw_dialog()
    store.add_annotation("codraw", dialog, codebook=store.codebook("clarification"), label="CR", coder="ann", turn=3)
    at = open_page("pages/replay.py", corpus="codraw", dialog=dialog, turn="2", coder="ann")
    (column,) = column_data(at)
    assert [label["key"] for label in column["labels"]] == ["c", "r", ""]
    assert column["steps"]["2"][0] == ["Teller", text] and column["dialog"] == dialog and column["step"] == 2
    assert [(label["label"], label["turn"]) for label in column["stored"]] == [("CR", 3)]
    assert player_data(at)[0]["layout"] == "workbench"  # the column beside the step player
    without = open_page("pages/replay.py", corpus="codraw", dialog=dialog, turn="2")
    assert not column_data(without) and "layout" not in player_data(without)[0]  # no coder: under the step
    opened = open_page("pages/replay.py", corpus="codraw", dialog=dialog, turn="2", code="1")
    assert any(t.label == "Coder (your name)" for t in opened.text_input)


def test_replay_without_codebook_points_to_the_codebooks_page():
    dialog, _ = _codraw_dialog()
    at = open_page("pages/replay.py", corpus="codraw", dialog=dialog, turn="1", coder="ann")
    assert any("No codebook yet" in i.value for i in at.info)


def test_codebooks_page_lists_and_saves_a_new_version():
    store = CodingStore()
    store.save_codebook(BOOK, created_by="ann")
    at = open_page("pages/codebooks.py", coder="ann")
    listing = at.dataframe[0].value
    assert listing[["name", "version", "n_labels"]].values.tolist() == [["clarification", 1, 3]]
    at.selectbox[0].select("clarification").run()
    next(t for t in at.text_area if t.label == "Description").input("now with a description").run()
    next(b for b in at.button if b.label == "Save as new version").click().run()
    assert not at.exception
    assert store.codebook("clarification").version == 2
    assert store.codebook("clarification").description == "now with a description"
    assert [lab.name for lab in store.codebook("clarification", 1).labels] == ["CR", "refers-to", "success"]
    assert any("Saved clarification version 2" in s.value for s in at.success)


def test_codebook_rows_from_the_editor_are_validated():
    from ui.coding.codebooks import labels_from_frame

    rows = pd.DataFrame([{"name": "CR", "description": None, "colour": None, "scope": "turn",
                          "links_referents": None, "key": "c"}, {"name": None}])
    assert [lab.name for lab in labels_from_frame(rows)] == ["CR"]
    bad = pd.DataFrame([{"name": "x", "scope": "turn", "colour": "red"}])
    try:
        labels_from_frame(bad)
    except cb.CodebookError as exc:
        assert str(exc).startswith("row 1: label 'x': colour")
    else:
        raise AssertionError("a bad colour must be refused")


def _seed_two_coders(store: CodingStore) -> None:
    book = store.save_codebook(BOOK)
    ann = {1: "CR", 2: "CR", 3: None, 4: "CR"}
    bo = {1: "CR", 2: None, 3: "CR", 4: "CR"}
    for coder, labels in (("ann", ann), ("bo", bo)):
        for turn, label in labels.items():
            if label:
                store.add_annotation("codraw", "d1", codebook=book, label=label, coder=coder, turn=turn)


def test_agreement_page_shows_statistics_disagreements_and_adjudicates():
    store = CodingStore()
    _seed_two_coders(store)
    at = open_page("pages/agreement.py", coder="judge")
    stats = at.dataframe[0].value.set_index("label")
    assert stats.loc["(overall)", "units"] == 4
    assert stats.loc["(overall)", "% agreement"] == "50.0%"
    assert stats.loc["(overall)", "Cohen's κ (95% CI)"].startswith("-0.333 [")
    assert any(h.value == "Disagreements (2)" for h in at.subheader)
    table = at.dataframe[1].value
    assert table["turn"].tolist() == ["2", "3"] and table["replay"].iloc[0] == "/replay?corpus=codraw&dialog=d1&turn=2"
    next(m for m in at.multiselect if m.label == "Gold label(s)").select("CR").run()
    next(b for b in at.button if b.label == "Save to gold").click().run()
    assert not at.exception
    gold = store.annotations(layer="gold")
    assert gold[["turn", "label", "coder"]].values.tolist() == [[2, "CR", "judge"]]
    next(b for b in at.button if b.label.startswith("Copy items")).click().run()
    assert sorted(store.annotations(layer="gold")["turn"].tolist()) == [1, 2, 4]


def test_coding_queue_page_creates_assigns_and_reports_progress():
    store = CodingStore()
    at = open_page("pages/coding_queue.py", coder="ann")
    assert any("No queue yet" in i.value for i in at.info)
    next(t for t in at.text_input if t.label.startswith("Coders")).input("ann, bo")
    next(n for n in at.number_input if n.label == "How many").set_value(3)
    next(b for b in at.button if b.label == "Create / extend queue").click().run()
    assert not at.exception
    progress = store.queues()
    assert progress.values.tolist() == [["codraw-pilot", "ann", 3, 0], ["codraw-pilot", "bo", 3, 0]]
    shown = at.dataframe[0].value
    assert shown[["coder", "items", "done"]].values.tolist() == [["ann", 3, 0], ["bo", 3, 0]]
    assert any("Resume with the next item" in m.value and "coder=ann" in m.value for m in at.markdown)
    first = store.queue_items("codraw-pilot", coder="ann")["id"].iloc[0]
    store.set_done(int(first))
    at.run()
    assert any(c.value.startswith("1 of 3 done") for c in at.caption)


def test_coding_queue_opens_at_the_linked_queue_else_at_the_coders_first_with_items_to_do():
    from data_access.links import Place

    store = CodingStore()
    store.create_queue("a-first", [Place("codraw", "d1", None, 1)], ["bo"])  # sorts first, none of ann's
    store.create_queue("b-mine", [Place("codraw", "d2", None, 2)], ["ann"])
    at = open_page("pages/coding_queue.py", coder="ann")
    assert next(s for s in at.selectbox if s.label == "Queue").value == "b-mine"
    assert any("Resume with the next item: d2" in m.value for m in at.markdown)
    at = open_page("pages/coding_queue.py", coder="ann", queue="a-first")
    assert next(s for s in at.selectbox if s.label == "Queue").value == "a-first"
    assert any(i.value.startswith("Nothing in a") and "first is assigned to ann" in i.value for i in at.info)


def test_agreement_with_a_published_layer():
    """A coder's span that reproduces a demo gos-mentions mention matches it exactly, referents included."""
    from data_access.corpora import load_configured
    from data_access.layers.load import configured_layer, load_layer

    loaded = load_configured("gos")
    source = configured_layer("gos-mentions")
    layer = load_layer("gos-mentions", loaded, source.path, source.is_demo).annotations
    mention = layer[layer["span_ok"]].iloc[0]
    store = CodingStore()
    book = store.save_codebook(cb.Codebook("mentions", (cb.Label("ref", scope="span", links_referents=True),)))
    store.add_annotation("gos", mention["dialog_id"], codebook=book, label="ref", coder="ann",
                         round=int(mention["round"]), turn=int(mention["turn"]), utterance=0,
                         start=int(mention["start"]), end=int(mention["end"]), span_text=mention["text"],
                         referents=list(mention["referents"]))
    at = open_page("pages/agreement.py", coder="ann")
    at.selectbox(key="agreement_layer").select("gos-mentions").run()
    assert not at.exception
    pairs = at.dataframe[0].value
    row = pairs.iloc[0]
    assert row["coders"] == "ann vs gos-mentions"
    assert row["exact_matched"] == 1 and row["spans_first"] == 1
    assert row["referent_items"] == 1 and row["same_referents"] == 1.0


def test_choosing_a_published_layer_keeps_the_coders_and_says_when_nothing_was_compared():
    """Choosing codraw-icr used to drop ann and bo from Compare; with only one of them and the layer (which has
    nothing in their dialog d1), the page said "every item was coded alike" over 0 units."""
    store = CodingStore()
    _seed_two_coders(store)
    at = open_page("pages/agreement.py", coder="judge")
    at.selectbox(key="agreement_layer").select("codraw-icr").run()
    assert not at.exception
    compare_box = next(m for m in at.multiselect if m.label == "Compare")
    assert compare_box.value == ["ann", "bo", "codraw-icr"]
    compare_box.unselect("bo").run()
    assert not at.exception
    assert at.dataframe[0].value.set_index("label").loc["(overall)", "units"] == 0
    captions = [c.value for c in at.caption]
    assert "None compared: no item was coded by both." in captions
    assert not any("every item was coded alike" in c for c in captions)
