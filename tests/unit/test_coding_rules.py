"""The coding rules without Streamlit (``data_access.coding.rules``): where a label of each scope is stored —
decided by the corpus contract's ``REPLAY_IN_ROUNDS``, not by a corpus's name — and the actions of the
Replay's coding panel on both store backends."""
from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from data_access.coding import codebook as cb
from data_access.coding import rules
from data_access.coding.referents import ReferentCanvas, referent_canvas
from data_access.coding.rules import AlreadyLabelled, CodingContext, Refused, put_label, remove_label, save_span
from data_access.common import CORPUS_NAMES
from data_access.corpora import corpus_module, demo_path, load_path
from data_access.store import CodingStore

ROOT = Path(__file__).resolve().parents[2]
BOOK = cb.Codebook("clarification", (
    cb.Label("CR", scope="turn", key="c"),
    cb.Label("refers-to", scope="span", links_referents=True),
    cb.Label("success", scope="dialog", links_referents=True),
))
UTTERANCES = pd.DataFrame({"speaker": ["Teller", "Drawer"], "role": ["Teller", "Drawer"], "text": ["a big tree", "ok"]})


@pytest.mark.parametrize("scope, in_rounds, stored", [
    ("span", False, 3), ("turn", False, 3), ("dialog", False, None),
    ("span", True, 3), ("turn", True, 3), ("dialog", True, 3),
])
def test_a_label_keeps_the_round_unless_it_is_a_dialog_label_of_a_corpus_without_rounds(scope, in_rounds, stored):
    assert rules.stored_round(scope, 3, in_rounds) == stored
    context = CodingContext("c", "d", 3, 7, "ann", BOOK, in_rounds)
    assert context.place(scope) == (stored, None if scope == "dialog" else 7)


@pytest.mark.parametrize("corpus", CORPUS_NAMES)
def test_the_context_takes_replay_in_rounds_from_the_corpus_package(corpus):
    context = CodingContext.at(corpus, "d", 1, 2, "ann", BOOK)
    assert context.replay_in_rounds is bool(corpus_module(corpus).REPLAY_IN_ROUNDS)


def test_ui_coding_compares_no_corpus_name_and_holds_no_script():
    source = (ROOT / "ui" / "coding" / "panel.py").read_text()
    names = "|".join(CORPUS_NAMES)
    assert not re.search(rf"""[=!]=\s*["']({names})["']|["']({names})["']\s*[=!]=""", source)
    assert "function(" not in source and "{ font" not in source  # its JavaScript and CSS are ui/assets files


@pytest.fixture
def store(store_target):
    coding = CodingStore(store_target)
    coding.save_codebook(BOOK)
    return coding


def test_a_turn_label_goes_on_and_comes_off_at_its_place(store):
    book = store.codebook("clarification")
    context = CodingContext("gos", "g1", 2, 5, "ann", book, True)
    assert put_label(store, context, "CR").message == "Saved CR."
    saved = store.annotations()
    assert saved[["label", "round", "turn"]].values.tolist() == [["CR", 2, 5]]
    assert rules.same_place(saved, 2, 5).tolist() == [True] and rules.same_place(saved, None, 5).tolist() == [False]
    with pytest.raises(AlreadyLabelled, match="CR is already labelled here"):  # a second press removes nothing
        put_label(store, context, "CR")
    assert len(store.annotations()) == 1
    assert remove_label(store, context, "CR").message == "Removed CR."  # taking it off is its own action
    assert store.annotations().empty
    with pytest.raises(Refused, match="CR is not labelled here"):
        remove_label(store, context, "CR")


def test_a_dialog_label_is_stored_at_the_round_only_where_the_replay_has_rounds(store):
    book = store.codebook("clarification")
    in_rounds = put_label(store, CodingContext("gos", "g1", 2, 5, "ann", book, True), "success")
    without = put_label(store, CodingContext("codraw", "c1", None, 5, "ann", book, False), "success")
    assert in_rounds.link_next is not None and without.link_next is not None  # the label links referents
    rounds = store.annotations().set_index("dialog_id")["round"]
    assert rounds["g1"] == 2 and pd.isna(rounds["c1"])


def test_a_span_is_checked_against_its_utterance_before_it_is_saved(store):
    context = CodingContext("codraw", "c1", None, 2, "ann", store.codebook("clarification"), False)
    with pytest.raises(Refused, match="there is no utterance 5"):
        save_span(store, context, UTTERANCES, "refers-to", 5, 0, 1)
    with pytest.raises(Refused, match=r"the selection 3\.\.99 is outside the utterance, which has 10"):
        save_span(store, context, UTTERANCES, "refers-to", 0, 3, 99)
    assert store.annotations().empty
    saved = save_span(store, context, UTTERANCES, "refers-to", 0, 2, 5)
    assert saved.message == "Saved “big” as refers-to — now click its referents." and saved.link_next is not None
    assert store.get_annotation(saved.link_next)["span_text"] == "big"


def test_a_label_the_codebook_lacks_is_grey_and_links_nothing():
    assert rules.label_colour(BOOK, "gone") == "#7f7f7f" and not rules.links_referents(BOOK, "gone")
    assert rules.links_referents(BOOK, "refers-to") and rules.label_colour(BOOK, "CR") == BOOK.label("CR").colour


@pytest.mark.parametrize("corpus, named, framed, pictured", [
    ("codraw", False, True, True),  # the clip art over the target scene
    ("gos", True, True, False),  # the 3 x 3 board
    ("minecraft", True, False, False),  # the blocks from above, as far as they reach
])
def test_each_corpus_says_how_its_referents_are_drawn(corpus, named, framed, pictured):
    loaded = load_path(corpus, demo_path(corpus))
    dialog = loaded.dialogs["dialog_id"].iloc[0]
    canvas = referent_canvas(loaded, dialog, 1, 1)
    assert isinstance(canvas, ReferentCanvas) and canvas.named is named and (canvas.x_range is not None) is framed
    assert (canvas.background is not None) is pictured
