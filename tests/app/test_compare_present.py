"""Compare and Present pages on the demo corpora: pictures for both sides, stepping, autoplay, exports."""
import re

import pytest

from tests.app.transcript_lines import player_captions, player_data

from .conftest import open_page


@pytest.mark.parametrize("corpus", ["codraw", "gos", "minecraft"])
def test_compare_shows_two_states_and_steps_together(corpus):
    at = open_page("pages/compare.py", corpus=corpus)
    assert len(player_captions(at)) == 2  # one step player per side
    links = [m.value for m in at.caption if "open in Replay" in m.value]
    unit = {"codraw": "Round", "gos": r"Round \d, step", "minecraft": "Message"}[corpus]  # each corpus's replay step
    assert len(links) == 2 and all(re.match(rf"{unit} 1 of \d+ ·", link) for link in links), links
    next(b for b in at.button if "Next" in b.label).click().run()
    links = [m.value for m in at.caption if "open in Replay" in m.value]
    assert len(links) == 2 and all(re.match(rf"{unit} 2 of \d+ ·", link) for link in links), links


def test_compare_gos_offers_only_plays_of_the_same_board():
    at = open_page("pages/compare.py", corpus="gos")
    right = at.selectbox(key="compare_right_play")
    assert right.options and all("round" in option for option in right.options)


@pytest.mark.parametrize("corpus", ["codraw", "gos", "minecraft"])
def test_present_shows_a_large_picture_and_the_transcript(corpus):
    at = open_page("pages/present.py", corpus=corpus)
    assert len(player_captions(at)) == 1
    next(b for b in at.button if "Next" in b.label).click().run()
    assert not at.exception
    strip = next(b for b in at.button if b.label == "Build PNG strip")
    strip.click().run()
    assert not at.exception
    assert any(d.label == "⬇ PNG strip" for d in at.get("download_button"))


def test_present_exports_an_animated_gif_of_the_steps():
    at = open_page("pages/present.py", corpus="gos")
    next(b for b in at.button if b.label.startswith("Build animated GIF")).click().run()
    assert not at.exception
    gif = next(d for d in at.get("download_button") if d.proto.label == "⬇ Animated GIF")
    assert gif.proto.url  # the bytes are served by the media file manager


def test_compare_keeps_the_stored_score_short_and_gives_the_reason_in_full():
    """A narrow Compare column cut "not scored" to "not sco…": the value is short, the reason in help and a caption."""
    at = open_page("pages/compare.py", corpus="codraw", together="0", lstep="1", rstep="1")
    stored = [m for m in at.metric if m.label == "Stored score"]
    assert len(stored) == 2
    assert all(len(m.value) <= 12 for m in at.metric), [m.value for m in at.metric]
    assert all("Not scored" in m.proto.help and "first round" in m.proto.help for m in stored)
    assert sum("Not scored" in c.value for c in at.caption) == 2
    assert {b.label for b in at.button if "step" not in b.label.lower()} >= {"◀ Previous", "Next ▶"}


def test_present_on_a_slice_plays_on_into_the_slices_next_dialog():
    """Issue 37: Present's autoplay goes through a slice like a playlist. At the end of a dialog the player is told
    that the slice goes on (it then asks the server for the next dialog), and the page names that dialog."""
    first = open_page("pages/present.py", corpus="codraw")
    dialogs = first.selectbox(key="present").options[:3]
    ids = [option.split(" · ")[0] for option in dialogs]
    chosen = f"dialog_id in ({ids[0]}, {ids[2]})"
    at = open_page("pages/present.py", corpus="codraw", dialog=ids[0], slice=chosen, play="1", turn="99")
    data = player_data(at)[0]
    assert data["continues"] is True and data["autoplay"] is True
    assert any(f"Next in the slice: {ids[2]}." in c.value.replace("\\", "") for c in at.caption), [c.value for c in at.caption]
    last = open_page("pages/present.py", corpus="codraw", dialog=ids[2], slice=chosen, play="1", turn="99")
    assert player_data(last)[0]["continues"] is False  # the slice's last dialog: the playlist ends
    assert not any("Next in the slice" in c.value for c in last.caption)
