"""Model labels as coders: the JSON Lines reader (good lines, every kind of bad line, the bounded skipped list,
the budget), the import into the store on both backends (replace on re-import, no clash with a human coder),
and the model-vs-human agreement on a hand-computed example."""
from __future__ import annotations

import gzip
import json
import math

import pandas as pd
import pytest

from data_access import budgets
from data_access.access import AccessRefused, Identity, Role
from data_access.coding import codebook as cb
from data_access.coding import compare
from data_access.coding import model_agreement as ma
from data_access.coding import model_labels as ml
from data_access.common import SKIPPED_KEPT, SourceError
from data_access.corpora import demo_path, load_path
from data_access.store import CodingStore

BOOK = cb.Codebook("clarification", (
    cb.Label("CR", scope="turn"),
    cb.Label("refers-to", scope="span", links_referents=True),
    cb.Label("success", scope="dialog"),
    cb.Label("about", scope="turn", links_referents=True),
))
SAVED = cb.Codebook(BOOK.name, BOOK.labels, version=1)
CORPORA: dict = {}


def corpora(name: str):
    if name not in CORPORA:
        CORPORA[name] = load_path(name, demo_path(name))
    return CORPORA[name]


def first_dialog(name: str) -> str:
    return str(corpora(name).dialogs["dialog_id"].iloc[0])


def lines(*records) -> bytes:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records).encode()


def parse(*records, book=SAVED):
    return ml.parse(lines(*records), "gpt.jsonl", book, corpora)


def test_good_lines_of_each_scope_become_annotations_of_the_model():
    dialog = first_dialog("codraw")
    read = parse(
        {"model": "gpt x", "corpus": "codraw", "dialog": dialog, "round": 2, "labels": ["CR"],
         "spans": [{"utterance": 0, "start": 17, "end": 20, "label": "refers-to", "referents": ["clipart:0"]}]},
        {"model": "gpt x", "corpus": "codraw", "dialog": dialog, "labels": ["success"]},
        {"model": "gpt x", "corpus": "codraw", "dialog": dialog, "round": 3, "labels": []},
        "",
    )
    assert (read.corpus, read.items, read.models, read.skipped_total) == ("codraw", 3, ["model:gpt x"], 0)
    assert [(a["label"], a["round"], a["turn"]) for a in read.annotations] == \
        [("CR", None, 2), ("refers-to", None, 2), ("success", None, None)]
    span = read.annotations[1]
    assert (span["utterance"], span["start"], span["end"], span["span_text"], span["referents"]) == \
        (0, 17, 20, "sun", ["clipart:0"])


def test_game_of_sorts_names_its_steps_within_rounds():
    dialog = first_dialog("gos")
    read = parse({"model": "m", "corpus": "gos", "dialog": dialog, "round": 1, "step": 3, "labels": ["CR"]},
                 {"model": "m", "corpus": "gos", "dialog": dialog, "round": 2, "labels": ["success"]},
                 {"model": "m", "corpus": "gos", "dialog": dialog, "step": 3, "labels": ["CR"]},
                 {"model": "m", "corpus": "gos", "dialog": dialog, "round": 1, "message": 3, "labels": ["CR"]})
    assert [(a["label"], a["round"], a["turn"]) for a in read.annotations] == [("CR", 1, 3), ("success", 2, None)]
    reasons = [s.reason for s in read.skipped]
    assert reasons[0].startswith("needs “round”") and "not “message”" in reasons[1]


@pytest.mark.parametrize("record, reason", [
    ("{not json", "not JSON"),
    ("[1, 2]", "not a JSON object but list"),
    ({"corpus": "codraw", "dialog": "D", "round": 1, "labels": ["CR"]}, "needs “model”"),
    ({"model": "m", "corpus": "nope", "dialog": "D", "labels": []}, "corpus 'nope' is not one of"),
    ({"model": "m", "corpus": "codraw", "dialog": "missing", "labels": []}, "dialog 'missing' is not in the loaded"),
    ({"model": "m", "corpus": "codraw", "dialog": "D", "round": 99, "labels": ["CR"]}, "“round” must be one of 1..8"),
    ({"model": "m", "corpus": "codraw", "dialog": "D", "round": True, "labels": ["CR"]}, "“round” must be one of"),
    ({"model": "m", "corpus": "codraw", "dialog": "D", "step": 2, "labels": ["CR"]}, "names its steps “round”"),
    ({"model": "m", "corpus": "codraw", "dialog": "D", "round": 2, "labels": ["nope"]}, "label 'nope' is not in"),
    ({"model": "m", "corpus": "codraw", "dialog": "D", "round": 2, "labels": ["success"]}, "is a dialog label"),
    ({"model": "m", "corpus": "codraw", "dialog": "D", "labels": ["CR"]}, "is a turn label"),
    ({"model": "m", "corpus": "codraw", "dialog": "D", "round": 2, "labels": ["refers-to"]}, "spans go in"),
    ({"model": "m", "corpus": "codraw", "dialog": "D", "round": 2, "labels": "CR"}, "must be a list of label names"),
    ({"model": "m", "corpus": "codraw", "dialog": "D", "round": 2, "labels": ["CR"], "referents": ["clipart:0"]},
     "none of its labels links referents"),
    ({"model": "m", "corpus": "codraw", "dialog": "D", "round": 2, "labels": ["about"], "referents": [""]},
     "“referents” must be a list of referent ids"),
    ({"model": "m", "corpus": "codraw", "dialog": "D", "round": 2,
      "spans": [{"utterance": 0, "start": 5, "end": 500, "label": "refers-to"}]}, "is outside the utterance"),
    ({"model": "m", "corpus": "codraw", "dialog": "D", "round": 2,
      "spans": [{"utterance": 0, "start": 5, "end": 5, "label": "refers-to"}]}, "is outside the utterance"),
    ({"model": "m", "corpus": "codraw", "dialog": "D", "round": 2,
      "spans": [{"utterance": 7, "start": 0, "end": 1, "label": "refers-to"}]}, "“utterance” must be one of 0..1"),
    ({"model": "m", "corpus": "codraw", "dialog": "D", "round": 2,
      "spans": [{"utterance": 0, "start": 0, "end": 1, "label": "CR"}]}, "not a span label"),
    ({"model": "m", "corpus": "codraw", "dialog": "D",
      "spans": [{"utterance": 0, "start": 0, "end": 1, "label": "refers-to"}]}, "spans need the line's “round”"),
    ({"model": "m" * 81, "corpus": "codraw", "dialog": "D", "labels": []}, "at most 80 characters"),
])
def test_each_kind_of_bad_line_is_skipped_with_its_reason(record, reason):
    dialog = first_dialog("codraw")
    if isinstance(record, dict) and record.get("dialog") == "D":
        record = dict(record, dialog=dialog)
    good = {"model": "m", "corpus": "codraw", "dialog": dialog, "round": 1, "labels": ["CR"]}
    read = parse(good, record)
    assert read.items == 1 and len(read.annotations) == 1
    assert len(read.skipped) == 1 and read.skipped[0].record == "gpt.jsonl:2", read.skipped
    assert reason in read.skipped[0].reason, read.skipped[0].reason


def test_one_corpus_per_file_and_one_line_per_item():
    dialog = first_dialog("codraw")
    good = {"model": "m", "corpus": "codraw", "dialog": dialog, "round": 1, "labels": ["CR"]}
    read = parse(good, good, {"model": "m", "corpus": "gos", "dialog": first_dialog("gos"), "round": 1, "labels": []})
    assert [s.reason for s in read.skipped] == [
        "the same item as line 1 (one line per item and model)",
        "corpus 'gos', but this file's labels are of 'codraw' (its first line): a file holds one corpus"]


def test_the_skipped_list_is_bounded_and_counts_every_line():
    dialog = first_dialog("codraw")
    bad = [{"model": "m", "corpus": "codraw", "dialog": dialog, "round": 1, "labels": ["nope"]}] * (SKIPPED_KEPT + 500)
    read = parse({"model": "m", "corpus": "codraw", "dialog": dialog, "round": 1, "labels": ["CR"]}, *bad, *["x"] * 300)
    assert len(read.skipped) == SKIPPED_KEPT and read.skipped_total == SKIPPED_KEPT + 800
    assert read.items == 1


def test_a_file_over_its_budget_or_a_gzip_bomb_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(ml, "MODEL_LABELS", budgets.Budget("model-labels", "model labels file", 20_000, 10, ""))
    with pytest.raises(SourceError, match="big.jsonl: is 20,001 bytes, more than a model labels file can be"):
        ml.decoded(b"x" * 20_001, "big.jsonl")
    with pytest.raises(SourceError, match="many.jsonl: has more than 10 lines"):
        ml.decoded(b"{}\n" * 11, "many.jsonl")
    bomb = gzip.compress(b"x" * 10_000_000)  # 10 MB in 10 kB: refused while it inflates
    with pytest.raises(SourceError, match="bomb.jsonl.gz: decompresses to more than a model labels file can be"):
        ml.decoded(bomb, "bomb.jsonl.gz")
    with pytest.raises(SourceError, match="decompresses to more than 10 lines"):
        ml.decoded(gzip.compress(b"\n" * 15_000), "lines.jsonl.gz")
    path = tmp_path / "bomb.jsonl.gz"
    path.write_bytes(bomb)
    with pytest.raises(SourceError, match="bomb.jsonl.gz: decompresses to more than"):
        ml.read_file(path, SAVED, corpora)
    assert ml.decoded(gzip.compress(b'\xef\xbb\xbf{"a": 1}\n'), "ok.gz") == b'{"a": 1}\n'


def test_the_model_labels_budget_is_the_documented_one():
    assert budgets.BUDGETS["model-labels"] is budgets.MODEL_LABELS
    assert ml.MODEL_LABELS is budgets.MODEL_LABELS


# -- the store: both backends ---------------------------------------------------------------------------------------

@pytest.fixture
def store(store_target) -> CodingStore:
    return CodingStore(store_target)


def test_import_and_reimport_replace_only_that_models_labels(store):
    book = store.save_codebook(BOOK)
    dialog = first_dialog("codraw")
    store.add_annotation("codraw", dialog, codebook=book, label="CR", coder="ann", turn=1)
    first = ml.parse(lines(*[{"model": "gpt", "corpus": "codraw", "dialog": dialog, "round": t, "labels": ["CR"]}
                             for t in (1, 2, 3)],
                           {"model": "other", "corpus": "codraw", "dialog": dialog, "round": 1, "labels": ["CR"]}),
                     "a.jsonl", book, corpora)
    done = ml.import_labels(store, first)
    assert done.replaced == 0
    assert done.message() == ("Imported 4 item(s) with 4 label(s) of model:gpt, model:other (codebook clarification v1, "
                              "CoDraw) from a.jsonl.")
    again = ml.parse(lines({"model": "gpt", "corpus": "codraw", "dialog": dialog, "round": 5, "labels": ["CR"]}),
                     "b.jsonl", book, corpora)
    done = ml.import_labels(store, again)
    assert done.replaced == 3 and "they replace the 3 label(s) imported for model:gpt before" in done.message()
    live = store.annotations(codebook=book.name)
    assert sorted(zip(live["coder"], live["turn"])) == [("ann", 1), ("model:gpt", 5), ("model:other", 1)]
    assert len(store.annotations(codebook=book.name, coder="model:gpt", include_deleted=True)) == 4  # kept as history


def test_no_person_may_code_as_a_model_and_no_import_overwrites_a_person(store):
    book = store.save_codebook(BOOK)
    dialog = first_dialog("codraw")
    with pytest.raises(ValueError, match="kept for imported model labels"):
        store.add_annotation("codraw", dialog, codebook=book, label="CR", coder="model:gpt", turn=1)
    # a label a person saved under a model's name before the name was kept for models
    with store.db.write() as cur:
        cur.execute("INSERT INTO annotations (uid, corpus, dialog_id, round, turn, utterance, scope, start_char, "
                    "end_char, span_text, codebook, codebook_version, label, referents, coder, layer, comment, "
                    "created_at, updated_at) VALUES ('by-hand', 'codraw', ?, NULL, 1, NULL, 'turn', NULL, NULL, NULL, "
                    "?, 1, 'CR', '[]', 'model:gpt', 'coding', '', '2026-01-01T00:00:00+00:00', "
                    "'2026-01-01T00:00:00+00:00')", [dialog, book.name])
    read = ml.parse(lines({"model": "gpt", "corpus": "codraw", "dialog": dialog, "round": 2, "labels": ["CR"]}),
                    "a.jsonl", book, corpora)
    with pytest.raises(ValueError, match="were not imported \\(saved by hand\\): nothing was imported"):
        ml.import_labels(store, read)
    assert store.annotations(codebook=book.name)["turn"].tolist() == [1]  # nothing written, nothing replaced
    with pytest.raises(ValueError, match="a model's coder name is model:<name>"):
        store.replace_model_annotations(book, "codraw", ["ann"], [])


def test_importing_needs_the_coder_role(store_target):
    store = CodingStore(store_target, sign_in=True)
    book = store.save_codebook(BOOK, actor=Identity("root", Role.ADMIN, signed_in=True))
    read = ml.parse(lines({"model": "gpt", "corpus": "codraw", "dialog": first_dialog("codraw"), "round": 2,
                           "labels": ["CR"]}), "a.jsonl", book, corpora)
    with pytest.raises(AccessRefused, match="needs the coder role"):
        ml.import_labels(store, read, actor=Identity("vic", Role.VIEWER, signed_in=True))
    ml.import_labels(store, read, actor=Identity("cody", Role.CODER, signed_in=True))
    assert store.annotations()["coder"].tolist() == ["model:gpt"]


def test_nothing_usable_is_not_imported(store):
    book = store.save_codebook(BOOK)
    read = ml.parse(lines("junk"), "junk.jsonl", book, corpora)
    with pytest.raises(ValueError, match="junk.jsonl: no usable line \\(1 skipped\\)"):
        ml.import_labels(store, read)


# -- agreement with the humans: a hand-computed example --------------------------------------------------------------

def _frame(coded: dict) -> pd.DataFrame:
    rows = [{"corpus": "codraw", "dialog_id": "d", "round": None, "turn": t, "coder": coder, "label": "CR"}
            for coder, turns in coded.items() for t in turns]
    return pd.DataFrame(rows)


UNITS = [("codraw", "d", None, t) for t in (1, 2, 3, 4)]


def test_model_against_the_humans_by_hand():
    # ann 1 1 0 0, bo 1 0 1 0, model 1 1 1 0 (CR on turns 1..4)
    frame = _frame({"ann": [1, 2], "bo": [1, 3], "model:m": [1, 2, 3]})
    table = ma.model_agreement(frame, ["ann", "bo"], ["model:m"], units=UNITS).set_index(["label", "coders"])
    humans, model = table.loc[("CR", "humans")], table.loc[("CR", "model:m")]
    # ann vs bo: agree on 2 of 4 (po .5), each says CR on half (pe .5·.5 + .5·.5 = .5): κ = 0
    assert humans["cohen_kappa"] == pytest.approx(0.0) and humans["units"] == 4
    # the model vs ann (and vs bo): agree on 3 of 4 (po .75), pe = .75·.5 + .25·.5 = .5: κ = .25 / .5 = .5
    assert model["cohen_kappa"] == pytest.approx(0.5) and model["units"] == 4
    # α = 1 − (n − 1)·D / (2·n₁·n₀) over the pairable values: humans 1 − 7·4/(2·4·4) = .125; with the model
    # (12 values, 7 CR, 4 disagreeing ordered pairs weighted 1/2 each): 1 − 11·4/(2·7·5) = 26/70
    assert humans["alpha"] == pytest.approx(0.125) and model["alpha"] == pytest.approx(26 / 70)
    overall = table.loc[("(overall)", "model:m")]  # label sets: the same values as the one label
    assert overall["cohen_kappa"] == pytest.approx(0.5) and overall["alpha"] == pytest.approx(26 / 70)


def test_model_agreement_with_queue_units_and_one_human():
    frame = _frame({"ann": [1, 2], "model:m": [1, 2, 3]})
    assigned = {"ann": set(UNITS)}
    table = ma.model_agreement(frame, ["ann"], ["model:m"], units=UNITS, assigned=assigned).set_index(["label", "coders"])
    assert table.loc[("CR", "humans"), "units"] == 0 and math.isnan(table.loc[("CR", "humans"), "cohen_kappa"])
    # the model vs ann: 1 1 1 0 against 1 1 0 0, κ = .5 as above
    assert table.loc[("CR", "model:m"), "cohen_kappa"] == pytest.approx(0.5)
    assert table.loc[("CR", "model:m"), "units"] == 4


def test_model_disagreements_are_where_the_model_differs_from_a_human():
    frame = _frame({"ann": [1, 2], "bo": [1, 2, 4], "model:m": [1, 2, 3]})
    table = ma.model_disagreements(frame, ["ann", "bo"], "model:m", units=UNITS)
    assert table["turn"].tolist() == [3, 4]  # turn 4: the humans disagree, and the model sides with ann
    assert table[["ann", "bo", "model:m"]].values.tolist() == [["none", "none", "CR"], ["none", "CR", "none"]]
    assert list(table.columns) == [*compare.disagreements(frame, ["ann", "bo", "model:m"]).columns]


def test_model_agreement_over_many_dialogs_is_not_quadratic():
    """A coder's "none" on a unit of a dialog they coded was found by scanning every unit they coded: over the
    5,000 dialogs here that took minutes; a set look-up takes a second or two."""
    import time

    rows = []
    for d in range(5000):
        rows.append({"corpus": "codraw", "dialog_id": f"d{d}", "round": None, "turn": 1, "coder": "ann", "label": "CR"})
        for t in (3, 6):
            rows.append({"corpus": "codraw", "dialog_id": f"d{d}", "round": None, "turn": t, "coder": "model:m",
                         "label": "CR"})
            if d % 2:
                rows.append({"corpus": "codraw", "dialog_id": f"d{d}", "round": None, "turn": t, "coder": "ann",
                             "label": "CR"})
    started = time.perf_counter()
    table = ma.model_agreement(pd.DataFrame(rows), ["ann"], ["model:m"]).set_index(["label", "coders"])
    assert time.perf_counter() - started < 30
    assert table.loc[("CR", "model:m"), "units"] == 15_000


def test_a_models_labels_where_no_human_coded_change_nothing():
    frame = _frame({"ann": [1, 2], "bo": [1, 3], "model:m": [1, 2, 3]})
    elsewhere = pd.DataFrame([{"corpus": "codraw", "dialog_id": "other", "round": None, "turn": t, "coder": "model:m",
                               "label": "CR"} for t in (1, 2)])
    alone = ma.model_agreement(frame, ["ann", "bo"], ["model:m"])
    beside = ma.model_agreement(pd.concat([frame, elsewhere], ignore_index=True), ["ann", "bo"], ["model:m"])
    pd.testing.assert_frame_equal(alone, beside)
    # units anyone labelled, 1..3: the model against ann (1 1 0) and bo (1 0 1) says CR on all three
    assert alone.set_index(["label", "coders"]).loc[("CR", "model:m"), "units"] == 3
    assert ma.model_disagreements(pd.concat([frame, elsewhere]), ["ann", "bo"], "model:m")["dialog_id"].tolist() == ["d", "d"]


def test_minecraft_names_its_steps_messages():
    dialog = first_dialog("minecraft")
    read = parse({"model": "m", "corpus": "minecraft", "dialog": dialog, "message": 2, "labels": ["CR"]},
                 {"model": "m", "corpus": "minecraft", "dialog": dialog, "round": 2, "labels": ["CR"]})
    assert [(a["label"], a["round"], a["turn"]) for a in read.annotations] == [("CR", None, 2)]
    assert "names its steps “message”, not “round”" in read.skipped[0].reason


def test_model_span_pairs_are_each_model_against_each_human():
    spans = pd.DataFrame([
        {"corpus": "codraw", "dialog_id": "d", "round": None, "turn": 2, "utterance": 0, "start": s, "end": e,
         "label": "refers-to", "referents": [], "coder": coder}
        for coder, s, e in (("ann", 0, 5), ("bo", 2, 5), ("model:m", 0, 5))])
    table = ma.model_span_pairs(spans, ["ann", "bo"], ["model:m"])
    assert table["coders"].tolist() == ["ann vs model:m", "bo vs model:m"]
    assert table["exact_matched"].tolist() == [1, 0] and table["overlap_matched"].tolist() == [1, 1]


# -- bounded in time and memory, not only in bytes ----------------------------------------------------------------

def _rounds(n: int) -> list[tuple[str, int]]:
    """``n`` (dialog, round) items of the demo CoDraw corpus, each with its Teller's text."""
    loaded = corpora("codraw")
    items = [(str(d), r) for d, steps in zip(loaded.dialogs["dialog_id"], loaded.dialogs["n_steps"])
             for r in range(1, int(steps) + 1)]
    assert len(items) >= n
    return items[:n]


def test_a_line_past_its_budget_is_skipped_with_its_reason_and_the_rest_imported(monkeypatch):
    (dialog, round_), = _rounds(1)
    span = {"utterance": 0, "start": 0, "end": 3, "label": "refers-to"}
    good = {"model": "m", "corpus": "codraw", "dialog": dialog, "round": round_, "labels": ["CR"]}
    long_line = json.dumps({**good, "round": round_ + 5, "labels": [], "junk": "x" * budgets.MODEL_LINE_BYTES})
    read = parse(
        good,
        {**good, "round": round_ + 1, "spans": [span] * (budgets.MAX_SPANS_PER_LINE + 1)},
        {**good, "round": round_ + 2, "spans": [span] * budgets.MAX_SPANS_PER_LINE},
        {**good, "round": round_ + 3, "labels": ["CR"] * (budgets.MAX_LABELS + 1)},
        {**good, "round": round_ + 4, "labels": ["about"], "referents": [f"clipart:{n}" for n in range(1001)]},
        long_line,
    )
    reasons = {s.record: s.reason for s in read.skipped}
    assert reasons == {
        "gpt.jsonl:2": f"has 1,001 spans, more than a line may have ({budgets.MAX_SPANS_PER_LINE:,}; one line is one step)",
        "gpt.jsonl:4": "“labels” has 201 names; a line has at most 200 (the most a codebook has)",
        "gpt.jsonl:5": "“referents” has 1,001 ids, more than one label or span may link (1,000)",
        "gpt.jsonl:6": f"is {len(long_line.encode()):,} bytes, more than a line of a model labels file may be "
                       f"({budgets.MODEL_LINE_BYTES:,} bytes; one line is one coded item)",
    }, reasons
    assert read.items == 2 and len(read.annotations) == 2 + budgets.MAX_SPANS_PER_LINE


def test_a_file_holds_at_most_100_models_the_lines_of_others_are_skipped():
    """A file of a model per line grew with the square of its lines (20,000 lines 9 s, 60,000 82 s): each line
    looked its model up in the list of all of them, and so did each label in the store."""
    items = _rounds(budgets.MAX_MODELS_PER_FILE + 20)
    read = parse(*[{"model": f"m{n}", "corpus": "codraw", "dialog": d, "round": r, "labels": ["CR"]}
                   for n, (d, r) in enumerate(items)])
    assert len(read.models) == read.items == budgets.MAX_MODELS_PER_FILE
    assert read.skipped_total == 20
    assert read.skipped[0].reason == "a file holds the labels of at most 100 models, and 'model:m100' would be one more"
    done = ml.Imported(read, 0).message()
    assert "model:m0, model:m1" in done and "model:m9 and 90 more model(s) (codebook" in done


def test_an_import_is_a_fixed_number_of_statements_whatever_its_size(store, monkeypatch):
    """The store inserted each label with a statement of its own, and retired each earlier one with two: half a
    million lines took 1.5 hours in one write transaction. Now every import, and every re-import replacing the
    labels before, is the same handful of statements, however many lines it has."""
    from data_access.store import Cursor

    book = store.save_codebook(BOOK)
    counted: list = []
    execute = Cursor.execute
    monkeypatch.setattr(Cursor, "execute", lambda self, sql, params=(): counted.append(sql) or execute(self, sql, params))

    def statements(n: int) -> int:
        counted.clear()
        read = ml.parse(lines(*[{"model": "gpt", "corpus": "codraw", "dialog": d, "round": r, "labels": ["CR"],
                                 "spans": [{"utterance": 0, "start": 0, "end": 2, "label": "refers-to"}]}
                                for d, r in _rounds(n)]), "a.jsonl", book, corpora)
        ml.import_labels(store, read)
        return len(counted)

    small, large, again = statements(2), statements(200), statements(200)
    assert small <= 6 and large == again == small + 2, (small, large, again)  # + retiring the earlier labels
    live = store.annotations(codebook=book.name)
    assert len(live) == 400 and set(live["coder"]) == {"model:gpt"}
    assert len(store.annotations(codebook=book.name, include_deleted=True)) == 804
    oldest = store.annotations(codebook=book.name, include_deleted=True)["id"].min()
    assert store.annotation_history(int(oldest))["action"].tolist() == ["delete", "deleted"]


def test_reading_and_importing_spans_costs_a_few_hundred_bytes_each(store):
    """One line of 1.1 million spans peaked at 1.5 GB: a dict per span read and another per row written. The
    spans are now kept as tuples and written as they are made (20,000 here, 1,000 a line)."""
    import tracemalloc

    book = store.save_codebook(BOOK)
    spans = [{"utterance": 0, "start": 0, "end": 2, "label": "refers-to", "referents": ["clipart:1"]}]
    data = lines(*[{"model": "gpt", "corpus": "codraw", "dialog": d, "round": r, "spans": spans * 1000}
                   for d, r in _rounds(20)])
    tracemalloc.start()
    try:
        read = ml.parse(data, "a.jsonl", book, corpora)
        ml.import_labels(store, read)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(read.annotations) == 20_000
    assert peak / 20_000 < 450, f"{peak / 20_000:.0f} bytes a span"  # 1,104 before
    assert len(store.annotations(codebook=book.name)) == 20_000


def test_the_agreement_read_is_what_it_compared_before(store):
    """``coded_labels`` (what the Agreement page reads on every run) is ``coded_sources`` of all annotations,
    read without the columns the comparison leaves out."""
    book = store.save_codebook(BOOK)
    d1, d2 = first_dialog("codraw"), "other"
    store.add_annotation("codraw", d1, codebook=book, label="CR", coder="ann", turn=2)
    store.add_annotation("codraw", d1, codebook=book, label="refers-to", coder="ann", turn=2, utterance=1, start=0,
                         end=3, span_text="the", referents=["clipart:3", "clipart:1"])
    gone = store.add_annotation("codraw", d2, codebook=book, label="success", coder="bo")
    store.delete_annotation(gone)
    store.add_annotation("gos", "g1", codebook=book, label="success", coder="ann", round=2)
    store.add_annotation("codraw", d1, codebook=book, label="CR", coder="ann", turn=2, layer="gold")
    ml.import_labels(store, parse({"model": "gpt", "corpus": "codraw", "dialog": d1, "round": 3, "labels": ["about"],
                                   "referents": ["clipart:2"]}, book=book))
    expected = compare.coded_sources(store.annotations(codebook=book.name))
    got = store.coded_labels(book.name)
    pd.testing.assert_frame_equal(got, expected)
    assert got["coder"].tolist() == ["ann", "ann", "ann", "gold", "model:gpt"]
    assert got["referents"].tolist()[1] == ["clipart:1", "clipart:3"]
    none = store.coded_labels("none")  # empty: the same columns (typed, where the old frame had floats for none)
    pd.testing.assert_frame_equal(none, compare.coded_sources(store.annotations(codebook="none")), check_dtype=False)
