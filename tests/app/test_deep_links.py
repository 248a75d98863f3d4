"""Deep links (issue 11, items 7 and 11): a step beyond the end shows the last step, a missing dialog does
not hand its step to another dialog, switching dialogs starts at step 1, Compare and Present are links
too, and every link keeps working under Streamlit's ``server.baseUrlPath``."""
import pytest
from streamlit import config

from data_access.corpora import demo_path, load_path
from tests.app.transcript_lines import player_lines, transcript_lines

from .conftest import open_page, state_link


def demo_dialogs(corpus: str) -> list[str]:
    return load_path(corpus, demo_path(corpus)).dialogs["dialog_id"].tolist()


UNIT = {"codraw": "round", "gos": "step", "minecraft": "message"}  # each replay's own word for a step


@pytest.mark.parametrize("corpus, extra", [("codraw", {}), ("gos", {"round": "1"}), ("minecraft", {})])
def test_a_step_beyond_the_end_shows_the_last_step_with_a_message(corpus, extra):
    dialog = demo_dialogs(corpus)[0]
    at = open_page("pages/replay.py", corpus=corpus, dialog=dialog, turn="999", **extra)
    last = int(at.slider[0].max)
    assert at.slider[0].value == last > 1
    assert any("999" in w.value and f"showing the last {UNIT[corpus]}, {last}" in w.value for w in at.warning)
    assert at.query_params["turn"] == str(last)


def test_a_missing_dialog_does_not_carry_its_step_to_another_dialog():
    at = open_page("pages/replay.py", corpus="codraw", dialog="nosuchdialog", turn="3")
    assert any("nosuchdialog" in w.value for w in at.warning)
    assert at.slider[0].value == 1
    assert at.query_params["turn"] == "1"
    assert at.query_params["dialog"] == at.selectbox(key="codraw_dialog").value


def test_switching_dialog_starts_the_new_one_at_its_first_step():
    first, second = demo_dialogs("codraw")[:2]
    at = open_page("pages/replay.py", corpus="codraw", dialog=first, turn="3")
    assert at.slider[0].value == 3
    at.selectbox(key="codraw_dialog").select(second).run()
    assert at.selectbox(key="codraw_dialog").value == second
    assert at.slider[0].value == 1 and at.query_params["turn"] == "1"


def test_compare_lives_in_the_url_and_shows_the_replay_details():
    first, second = demo_dialogs("codraw")[:2]
    at = open_page("pages/compare.py", corpus="codraw", left=second, right=first, step="2")
    assert at.selectbox(key="compare_left").value == second
    assert at.selectbox(key="compare_right").value == first
    assert [s.value for s in at.slider] == [2]
    labels = [m.label for m in at.metric]
    assert labels.count("Final metric") == 2 and labels.count("Stored score") == 2
    assert sum(m.value.startswith("**Changes in round 2:**") for m in at.markdown) == 2
    next(b for b in at.button if "Next" in b.label).click().run()
    assert at.query_params["step"] == "3" and at.query_params["left"] == second
    # speakers are named once, not "Teller · Teller"
    metas = [line["meta"] for line in transcript_lines(at) + player_lines(at)]
    assert metas and not any("Teller · Teller" in m or "Teller (Teller)" in m for m in metas)
    assert any(m.startswith("Teller · round 3") for m in metas)


def test_compare_stepping_apart_keeps_both_steps_in_the_url():
    first, second = demo_dialogs("minecraft")[:2]
    at = open_page("pages/compare.py", corpus="minecraft", left=first, right=second, together="0", lstep="2", rstep="3")
    assert [s.value for s in at.slider] == [2, 3]
    assert [m.label for m in at.metric].count("F1 to target") == 2


def test_compare_gos_shows_events_and_ranks_of_both_plays():
    at = open_page("pages/compare.py", corpus="gos", step="40")
    assert sum(m.value.startswith("**Ranks so far:**") for m in at.markdown) == 2
    assert at.query_params["lround"] and at.query_params["rround"]


@pytest.fixture
def base_path():
    config.set_option("server.baseUrlPath", "lab")
    yield "/lab"
    config.set_option("server.baseUrlPath", "")


def test_links_carry_the_base_path(base_path):
    dialog = demo_dialogs("codraw")[0]
    at = open_page("pages/replay.py", corpus="codraw", dialog=dialog, turn="2")
    assert state_link(at) == f"/lab/replay?corpus=codraw&dialog={dialog}&turn=2"
    browse = open_page("pages/browse.py", corpus="codraw")
    assert browse.dataframe[0].value["replay"].str.startswith("/lab/replay?corpus=codraw&dialog=").all()
    compare = open_page("pages/compare.py", corpus="codraw")
    assert all("](/lab/replay?corpus=codraw" in c.value for c in compare.caption if "open in Replay" in c.value)


def test_search_and_notes_links_carry_the_base_path(base_path):
    from data_access.sources import notes_db_path
    from data_access.store import NotesStore

    search = open_page("pages/search.py", q="the")
    hits = [frame.value for frame in search.dataframe if "link" in frame.value.columns]
    assert hits and all(frame["link"].str.startswith("/lab/replay?corpus=").all() for frame in hits)
    dialog = demo_dialogs("codraw")[0]
    NotesStore(notes_db_path()).add_note("codraw", dialog, "a note", turn=2)
    notes = open_page("pages/notes.py")
    assert notes.dataframe[0].value["link"].tolist() == [f"/lab/replay?corpus=codraw&dialog={dialog}&turn=2"]


def test_a_url_that_names_another_corpus_is_followed_as_back_over_a_corpus_switch_does():
    at = open_page("pages/replay.py", corpus="codraw")
    assert at.segmented_control(key="replay_corpus").value == "codraw"
    at.query_params.clear()
    at.query_params["corpus"] = "gos"  # the browser's Back to an entry of another corpus
    at.run()
    assert not at.exception
    assert at.segmented_control(key="replay_corpus").value == "gos" and at.query_params["corpus"] == "gos"
    assert "Interaction" in [s.label for s in at.selectbox]  # A Game Of Sorts' picker, not CoDraw's "Dialog"
