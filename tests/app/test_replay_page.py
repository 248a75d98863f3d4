"""The replay page as a whole (through app.py's router): every corpus at a deep link, the shareable
link, notes written at a turn surviving a restart, and the ways into it from Browse and Search."""

import pytest

from .conftest import open_page, state_link


def first_dialog(corpus: str) -> str:
    at = open_page("pages/browse.py", corpus=corpus)
    return at.dataframe[0].value["dialog_id"].iloc[0]


@pytest.mark.parametrize("corpus, extra", [("codraw", {}), ("gos", {"round": "2"}), ("minecraft", {})])
def test_deep_link_through_the_router_shows_the_state_and_its_link(corpus, extra):
    dialog = first_dialog(corpus)
    at = open_page("pages/replay.py", corpus=corpus, dialog=dialog, turn="2", **extra)
    link = state_link(at)
    assert f"dialog={dialog}" in link and "turn=2" in link
    assert ("round=2" in link) == (corpus == "gos")


def test_a_note_written_at_a_turn_is_there_after_a_restart():
    dialog = first_dialog("codraw")
    at = open_page("pages/replay.py", corpus="codraw", dialog=dialog, turn="3")
    at.text_area(key="note_form_codraw_text").input("the drawer <b>misreads</b> 'left'")
    at.text_input(key="note_form_codraw_tags").input("Spatial, repair")
    next(b for b in at.button if b.label == "Save note").click().run()
    assert not at.exception
    assert any("Note saved" in s.value for s in at.success)

    restarted = open_page("pages/replay.py", corpus="codraw", dialog=dialog, turn="3")
    assert "the drawer <b>misreads</b> 'left'" in [t.value for t in restarted.text]
    other_turn = open_page("pages/replay.py", corpus="codraw", dialog=dialog, turn="4")
    assert "the drawer <b>misreads</b> 'left'" not in [t.value for t in other_turn.text]
    notes_page = open_page("pages/notes.py")
    table = notes_page.data_editor[0].value
    assert table["tags"].tolist() == ["spatial, repair"]


def test_a_note_is_saved_on_the_step_the_page_shows_as_it_is_sent():
    """The form does not follow each step (the player's settle runs the page's parts of the step, not the form): a note
    is saved where the URL is when it is sent, not where the form was drawn."""
    dialog = first_dialog("codraw")
    at = open_page("pages/replay.py", corpus="codraw", dialog=dialog, turn="2")
    at.query_params["turn"] = "5"  # the reader rested on round 5: the settle put it into the URL
    at.text_area(key="note_form_codraw_text").input("said at round five")
    next(b for b in at.button if b.label == "Save note").click().run()
    assert not at.exception and any("Note saved" in s.value for s in at.success)
    assert "said at round five" in [t.value for t in open_page("pages/replay.py", corpus="codraw", dialog=dialog, turn="5").text]
    assert "said at round five" not in [t.value for t in open_page("pages/replay.py", corpus="codraw", dialog=dialog, turn="2").text]


def test_browse_rows_link_to_the_replay_and_the_link_opens_it():
    at = open_page("pages/browse.py", corpus="gos")
    table = at.dataframe[0].value
    assert table["replay"].str.startswith("/replay?corpus=gos&dialog=").all()
    dialog = table["dialog_id"].iloc[0]
    replay = open_page("pages/replay.py", corpus="gos", dialog=dialog)
    assert replay.query_params["dialog"] == dialog and replay.query_params["turn"] == "1"


def test_browse_filters_live_in_the_url():
    at = open_page("pages/browse.py", corpus="codraw", split="val", min_steps="5")
    table = at.dataframe[0].value
    assert len(table) > 0 and set(table["split"]) == {"val"} and (table["n_steps"] >= 5).all()
    assert at.query_params["split"] == "val"


def test_search_results_link_to_the_turn_they_were_said_at():
    at = open_page("pages/search.py", q="the")
    hits = at.dataframe[0].value
    assert len(hits) > 0
    row = hits.iloc[0]  # the first tab: CoDraw
    assert row["link"].startswith(f"/replay?corpus=codraw&dialog={row['dialog_id']}")
    assert f"turn={row['turn']}" in row["link"]


def test_search_with_a_broken_regex_explains_instead_of_failing():
    at = open_page("pages/search.py", q="(unclosed", mode="regex")
    assert at.warning and "regular expression" in at.warning[0].value


def test_minecraft_bap_samples_download_from_browse():
    at = open_page("pages/browse.py", corpus="minecraft")
    at.selectbox(key="bap_split").select("train").run()
    next(b for b in at.button if b.label == "Prepare the file").click().run()
    assert not at.exception
    download = next(d for d in at.get("download_button") if "samples.jsonl" in d.proto.label)
    assert "samples)" in download.proto.label and "(0 samples)" not in download.proto.label


def test_the_link_to_this_state_keeps_the_3d_view():
    """Issue 38: "Link to exactly this state" dropped view3d=1."""
    at = open_page("pages/replay.py", corpus="minecraft", dialog="B1-A2-C1-1523304955000", turn="3", view3d="1")
    assert "view3d=1" in state_link(at)
    without = open_page("pages/replay.py", corpus="minecraft", dialog="B1-A2-C1-1523304955000", turn="3")
    assert "view3d" not in state_link(without)
