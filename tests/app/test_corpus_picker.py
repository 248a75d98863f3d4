"""The corpus picker (``ui.shell.corpus_edge.corpus_selector``) hands its page the corpus resolved, once per run, while the
URL's ``corpus=`` and the widget behave as they always have: a link naming a corpus by its name or its title
(however cased) opens it, an unknown one says so and shows the first corpus, and the URL names the corpus shown."""
from __future__ import annotations

from .conftest import run_function


def picker_script():
    import streamlit as st

    from ui.shell.corpus_edge import corpus_selector

    corpus = corpus_selector("picked_corpus")
    st.session_state["picked"] = (type(corpus).__name__, corpus.name, corpus.title)


def test_the_picker_hands_the_corpus_the_link_names_resolved():
    at = run_function(picker_script, corpus="gos")
    assert at.session_state["picked"] == ("Corpus", "gos", "A Game Of Sorts")
    assert at.session_state["picked_corpus"] == "gos" and at.query_params["corpus"] == "gos"


def test_a_link_may_name_the_corpus_by_its_title():
    at = run_function(picker_script, corpus="a game of sorts")
    assert at.session_state["picked"][1] == "gos" and at.query_params["corpus"] == "gos"
    assert not at.warning


def test_an_unknown_corpus_is_said_and_the_first_is_shown():
    at = run_function(picker_script, corpus="nosuchcorpus")
    assert any("unknown corpus" in w.value and "nosuchcorpus" in w.value for w in at.warning)
    assert at.session_state["picked"] == ("Corpus", "codraw", "CoDraw")


def test_choosing_another_corpus_hands_over_that_one():
    at = run_function(picker_script)
    assert at.session_state["picked"][1] == "codraw"
    at.segmented_control(key="picked_corpus").set_value("minecraft").run()
    assert at.session_state["picked"][1] == "minecraft" and at.query_params["corpus"] == "minecraft"
