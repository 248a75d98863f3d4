"""Arriving at a search hit's replay highlights the matched text at that turn, in every corpus; the
highlight is escaped text (no markup from data) and absent at other turns."""
from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest

from data_access.corpora import load_configured
from data_access.links import highlight_segments
from tests.app.transcript_lines import player_marked
from ui.replay.highlight import marked_html

from .conftest import open_page


def _marked(at) -> list[str]:
    """HTML blocks with a search mark in them (the transcript is HTML too, marked or not), and the step
    player's lines with a match marked."""
    return [element.proto.body for element in at.get("html") if "<mark" in element.proto.body] + player_marked(at)


def _said_at(corpus: str, params: dict[str, str]) -> list[str]:
    """The messages of the step a replay link points at."""
    utterances = load_configured(corpus).utterances
    rows = utterances[(utterances["dialog_id"] == params["dialog"]) & (utterances["turn"] == int(params["turn"]))]
    if "round" in params:
        rows = rows[rows["round"] == int(params["round"])]
    assert len(rows), params
    return rows["text"].tolist()


@pytest.mark.parametrize("corpus, word", [("codraw", "left"), ("gos", "red"), ("minecraft", "block")])
def test_a_hit_link_opens_the_replay_with_the_match_marked(corpus, word):
    search = open_page("pages/search.py", q=word, **{"in": corpus})
    hit = search.dataframe[0].value.iloc[0]
    params = dict(parse_qsl(urlsplit(hit["link"]).query))
    assert params["corpus"] == corpus and params["hl"] == hit["match"]
    replay = open_page("pages/replay.py", **params)
    marked = _marked(replay)
    assert len(marked) >= 1
    assert f">{hit['match']}</mark>" in marked[0]
    # another step of the same dialog marks the text only where that step says it too (in the demo: Minecraft's)
    other = dict(params, turn=str(int(params["turn"]) + 1 if int(params["turn"]) == 1 else 1))
    elsewhere = _marked(open_page("pages/replay.py", **other))
    said = any(hit["match"].lower() in text.lower() for text in _said_at(corpus, other))
    assert said == (corpus == "minecraft")  # both cases occur
    assert len(elsewhere) == int(said) and all(f"{hit['match']}</mark>" in m for m in elsewhere)


def test_highlight_segments_and_markup():
    assert highlight_segments("The tree, the TREE", "tree") == [("The ", False), ("tree", True), (", the ", False), ("TREE", True)]
    assert highlight_segments("abc", "") == [("abc", False)]
    assert marked_html("no match here", "tree") is None
    html = marked_html("<b>tree</b> [x](http://e)", "tree")
    assert "&lt;b&gt;" in html and "<b>" not in html.replace("<mark", "").split(">", 1)[1].split("<mark")[0]
    assert ">tree</mark>" in html
