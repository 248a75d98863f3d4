"""What the pages show of a layer: span segments, mention search and counts, CRs per dialog and the score by
CR presence with a bootstrap interval that stays in range."""
from __future__ import annotations

import pytest

from corpora.codraw.data import icr_analysis
from corpora.codraw.data.figures import score_by_cr_chart
from corpora.gos.data import mentions_analysis
from corpora.gos.data.mentions_view import mention_step
from data_access import annotation_form
from data_access.corpora import load_path
from data_access.layers.load import demo_layer_path, load_layer


@pytest.fixture(scope="module")
def gos(tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    corpus = load_path("gos", None, cache_root=cache)
    return load_layer("gos-mentions", corpus, demo_layer_path("gos-mentions", cache), True), corpus


@pytest.fixture(scope="module")
def codraw(tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    corpus = load_path("codraw", None, cache_root=cache)
    return load_layer("codraw-icr", corpus, demo_layer_path("codraw-icr", cache), True), corpus


def test_segments_cut_text_at_spans_and_leave_out_spans_that_do_not_fit():
    assert annotation_form.segments("so the one with", [(3, 10), (7, 10), (20, 30)]) == [
        ("so ", None), ("the ", 0), ("one", 1), (" with", None)]
    assert annotation_form.segments("abc", [(-1, -1)]) == [("abc", None)]


def test_mention_counts_add_up_and_search_finds_them(gos):
    layer, corpus = gos
    table = mentions_analysis.mentions_per_round(layer, corpus)
    assert len(table) == len(corpus.frames["rounds"])
    assert table["mentions"].sum() == len(layer.annotations)
    assert (table["single"] + table["group"] == table["mentions"]).all()
    per_board = mentions_analysis.mentions_per_criterion(table)
    assert per_board["mentions"].sum() == len(layer.annotations) and per_board["plays"].sum() == len(table)
    hits = mentions_analysis.search_mentions(layer, corpus, "PUG")
    assert len(hits) == layer.annotations["text"].str.lower().str.contains("pug").sum() > 0
    assert mentions_analysis.search_mentions(layer, corpus, "PUG", True).empty


def test_mention_step_frames_the_referents_on_both_boards(gos):
    layer, corpus = gos
    row = layer.annotations[~layer.annotations["single"]].iloc[0]  # a message with a group mention
    players = tuple((u, None) for u in corpus.dialogs.set_index("dialog_id").loc[row["dialog_id"], ["player_a", "player_b"]])
    step = mention_step(layer, corpus, row["dialog_id"], int(row["round"]), int(row["turn"]), (), players)
    assert step.text and len(step.boards) == 2 and set(row["referents"]) <= set(step.referents)
    assert "".join(piece for piece, _ in step.pieces) == step.text
    assert any(index is not None for _, index in step.pieces)
    empty = mention_step(layer, corpus, row["dialog_id"], int(row["round"]), 10_000, (), players)
    assert empty.text == "" and empty.boards == ()


def test_cr_groups_and_score_by_cr(codraw):
    layer, corpus = codraw
    per_dialog = icr_analysis.cr_by_dialog(layer)
    assert per_dialog["crs"].sum() == int(layer.annotations["is_cr"].sum())
    stats, data = icr_analysis.score_by_cr(layer, corpus)
    overall = stats[stats["split"] == "all"].set_index("group")
    assert overall["n"].sum() == corpus.dialogs["final_score"].notna().sum()
    assert overall.loc["with a CR", "n"] == (per_dialog["crs"] > 0).sum()
    finite = overall.dropna(subset=["low"])
    assert ((finite["low"] >= 0) & (finite["high"] <= 5) & (finite["low"] <= finite["mean"])).all()
    chart = score_by_cr_chart(layer, corpus)
    assert "bootstrap" in chart.caption and not chart.empty
