"""Browse by run and by code (issue 27): each corpus's per-dialog run table from a tiny run, values worked by
hand; dialogs a run did not score stay empty (not 0); the "has label L" filter by coder, by any coder and by
the gold."""
from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from data_access.coding import adjudication
from data_access.coding import codebook as cb
from data_access.coding.label_filter import GOLD, LabelFilter, label_counts, label_options
from data_access.corpora import load_path
from data_access.runs import load_run
from data_access.runs.browse_columns import column_name, run_columns, with_run_columns
from data_access.store import NO_DECISION, CodingStore
from tests.unit import test_runs_codraw as codraw_runs
from tests.unit import test_runs_minecraft as minecraft_runs
from tests.unit.test_minecraft_bap import GAME, game_json, write_corpus


def jsonl(path, *lines):
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_codraw_score_is_the_final_drawing_and_gap_is_to_the_human_drawer(tmp_path):
    corpus = load_path("codraw", codraw_runs.write_corpus(tmp_path), cache_root=tmp_path / "cache")
    # train_00001: round 1 the target (5), round 2 flipped (4), round 3 an empty canvas: the final drawing is
    # round 2, 4.0; the human Drawer drew the target every round, 5.0, so the gap is 4 - 5 = -1.
    run = load_run(corpus, jsonl(tmp_path / "model.jsonl",
                                 {"dialog_id": "train_00001", "round": 1, "scene": codraw_runs.SAME},
                                 {"dialog_id": "train_00001", "round": 2, "scene": codraw_runs.FLIPPED},
                                 {"dialog_id": "train_00001", "round": 3, "scene": ""}), cache_root=tmp_path / "cache")
    columns = run_columns(corpus, run)
    assert list(columns.columns) == ["model · score", "model · gap"]
    assert columns.loc["train_00001"].tolist() == [4.0, -1.0]
    assert "test_00002" not in columns.index  # not predicted
    table = with_run_columns(pd.DataFrame({"dialog_id": ["test_00002", "train_00001"], "notes": [0, 0],
                                           "replay": ["a", "b"]}), [columns])
    assert list(table.columns) == ["dialog_id", "model · score", "model · gap", "notes", "replay"]
    assert math.isnan(table.loc[0, "model · score"]) and math.isnan(table.loc[0, "model · gap"])  # empty, not 0
    assert table.loc[1, "model · score"] == 4.0 and table.loc[1, "model · gap"] == -1.0


def test_minecraft_score_is_the_micro_f1_over_the_games_samples(tmp_path):
    corpus = load_path("minecraft", write_corpus(tmp_path / "corpus", {GAME: game_json()}), cache_root=tmp_path / "cache")
    place, remove = minecraft_runs.place, minecraft_runs.remove
    # the worked example of test_runs_minecraft: tp 0+1+3 = 4, fp 0+2+0 = 2, fn 5+1+0 = 6 over the game's three
    # samples: P = 4/6, R = 4/10, F1 = 0.5; not the mean of the samples' F1s: 0, 0.4 (sample 9: P 1/3, R 1/2)
    # and 1, whose mean is 0.4667
    run = load_run(corpus, jsonl(tmp_path / "model.jsonl",
                                 {"game": GAME, "sample_id": 3, "actions": []},
                                 {"game": GAME, "sample_id": 9, "actions": [remove(0, 2, 1), remove(0, 3, 1), remove(0, 9, 1),
                                                                            place(0, 6, 1, "red")]},
                                 {"game": GAME, "sample_id": 15, "actions": [place(-1, 5, 1), place(-1, 4, 1),
                                                                             place(-1, 3, 1)]}),
                   cache_root=tmp_path / "cache")
    columns = run_columns(corpus, run)
    assert list(columns.columns) == ["model · score"]  # the humans are the gold: no gap column
    assert columns.loc[GAME, "model · score"] == pytest.approx(0.5)
    assert run.frames["samples"]["f1"].mean() == pytest.approx((0 + 0.4 + 1) / 3)  # not what the column shows


def test_minecraft_one_sample_of_two_scored(tmp_path):
    corpus = load_path("minecraft", write_corpus(tmp_path / "corpus", {GAME: game_json()}), cache_root=tmp_path / "cache")
    run = load_run(corpus, jsonl(tmp_path / "model.jsonl", {"game": GAME, "sample_id": 3, "actions": []}),
                   cache_root=tmp_path / "cache")
    assert run_columns(corpus, run).loc[GAME, "model · score"] == 0.0  # scored, and wrong: 0, not empty


def test_gos_score_is_the_mean_f1_over_the_interactions_messages_with_gold(tmp_path):
    corpus = load_path("gos", None, cache_root=tmp_path)
    messages = corpus.frames["messages"]
    interaction = messages["interaction_id"].iloc[0]
    mine = messages[messages["interaction_id"] == interaction]
    with_gold = mine[mine["image_ids"].map(len) == 1].iloc[:3]
    without = mine[mine["image_ids"].map(len) == 0].iloc[:1]
    assert len(with_gold) == 3 and len(without) == 1

    def key(r):
        return {"interaction_id": r["interaction_id"], "round_number": int(r["round"]), "message_number": int(r["message_number"])}
    rows = [r for _, r in with_gold.iterrows()]
    first_gold = list(rows[0]["image_ids"])[0]
    # exact (F1 1); the gold and one wrong image (P 1/2, R 1, F1 2/3); nothing (F1 0); a message with empty gold,
    # named: not a unit. Mean over the three: (1 + 2/3 + 0) / 3 = 5/9.
    run = load_run(corpus, jsonl(tmp_path / "model.jsonl",
                                 {**key(rows[0]), "image_ids": [first_gold]},
                                 {**key(rows[1]), "image_ids": [list(rows[1]["image_ids"])[0], "not_an_image"]},
                                 {**key(rows[2]), "image_ids": []},
                                 {**key(without.iloc[0]), "image_ids": [first_gold]}), cache_root=tmp_path)
    columns = run_columns(corpus, run)
    assert list(columns.columns) == ["model · score"]
    assert list(columns.index) == [interaction]  # the other interactions are not in it: empty on Browse
    assert columns.loc[interaction, "model · score"] == pytest.approx(5 / 9)


def test_a_run_name_with_markup_is_kept_as_it_is_in_the_column_name():
    assert column_name("![x](y.png) **b**", "score") == "![x](y.png) **b** · score"


# ------------------------------------------------------------------------------------------ the label filter

BOOK = cb.Codebook("clarification", (cb.Label("CR", scope="turn"), cb.Label("hedge", scope="span"),
                                     cb.Label("success", scope="dialog")))
OTHER = cb.Codebook("other", (cb.Label("CR", scope="turn"),))


@pytest.fixture
def annotations(tmp_path) -> pd.DataFrame:
    store = CodingStore(tmp_path / "store.sqlite3")
    book, other = store.save_codebook(BOOK), store.save_codebook(OTHER)
    store.add_annotation("codraw", "d1", codebook=book, label="CR", coder="ann", turn=1)
    store.add_annotation("codraw", "d1", codebook=book, label="CR", coder="ann", turn=3)
    store.add_annotation("codraw", "d1", codebook=book, label="CR", coder="bo", turn=1)
    store.add_annotation("codraw", "d2", codebook=book, label="CR", coder="bo", turn=2)
    store.add_annotation("codraw", "d3", codebook=book, label="success", coder="ann")
    store.add_annotation("codraw", "d4", codebook=other, label="CR", coder="ann", turn=1)
    store.add_annotation("gos", "g1", codebook=book, label="CR", coder="ann", turn=1)  # another corpus
    deleted = store.add_annotation("codraw", "d5", codebook=book, label="CR", coder="ann", turn=1)
    store.delete_annotation(deleted)
    # the gold: CR on d2 turn 2 only (d1 turn 1 adjudicated as no label)
    adjudication.save_gold_labels(store, book, "turn", "codraw", "d2", None, 2, ["CR"], "judge", expected=NO_DECISION)
    adjudication.save_gold_labels(store, book, "turn", "codraw", "d1", None, 1, [], "judge", expected=NO_DECISION)
    return store.annotations()


def test_has_label_by_one_coder(annotations):
    assert label_counts(annotations, "codraw", LabelFilter("CR", "ann")).to_dict() == {"d1": 2, "d4": 1}
    assert label_counts(annotations, "codraw", LabelFilter("CR", "bo")).to_dict() == {"d1": 1, "d2": 1}
    assert label_counts(annotations, "codraw", LabelFilter("success", "bo")).to_dict() == {}


def test_has_label_by_any_coder_leaves_the_gold_out_and_a_codebook_narrows_it(annotations):
    assert label_counts(annotations, "codraw", LabelFilter("CR")).to_dict() == {"d1": 3, "d2": 1, "d4": 1}
    assert label_counts(annotations, "codraw", LabelFilter("CR", codebook="clarification")).to_dict() == {"d1": 3, "d2": 1}
    assert label_counts(annotations, "gos", LabelFilter("CR")).to_dict() == {"g1": 1}


def test_has_label_by_the_gold(annotations):
    assert label_counts(annotations, "codraw", LabelFilter("CR", GOLD)).to_dict() == {"d2": 1}


def test_the_options_are_this_corpus_codebooks_labels_and_coders(annotations):
    options = label_options(annotations, "codraw")
    assert options.codebooks == ("clarification", "other")
    assert options.labels == ("CR", "success")
    assert options.coders == ("ann", "bo")  # the adjudicator is not a coder
    assert options.has_gold
    assert label_options(annotations, "codraw", "other").labels == ("CR",)
    assert label_options(pd.DataFrame(), "codraw").labels == ()
