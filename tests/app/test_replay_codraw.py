"""AppTest runs of the CoDraw replay section on the generated demo corpus."""
from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from data_access.corpora import demo_path, load_path
from tests.app.transcript_lines import player_captions, player_data, transcript_texts

from .conftest import run_function


def replay_script():
    from corpora.codraw.views.replay import show
    from ui.shell.corpus_edge import resolve

    show(resolve("codraw"))


def open_replay(**params) -> AppTest:
    return run_function(replay_script, corpus="codraw", **params)


def image_captions(at: AppTest) -> list[str]:
    """The pictures of the step shown: the step player's (``ui.replay.step_player``)."""
    return player_captions(at)


def chat_texts(at: AppTest) -> list[str]:
    return transcript_texts(at)


def demo_dialog_with_rounds(minimum: int) -> tuple[str, dict[int, str]]:
    """A demo dialog with at least ``minimum`` rounds and its Teller messages by round."""
    loaded = load_path("codraw", demo_path("codraw"))
    dialogs = loaded.dialogs[loaded.dialogs["n_steps"] >= minimum]
    dialog_id = dialogs["dialog_id"].iloc[0]
    teller = loaded.utterances[(loaded.utterances["dialog_id"] == dialog_id) & (loaded.utterances["role"] == "Teller")]
    return dialog_id, dict(zip(teller["turn"], teller["text"]))


def test_a_deep_link_shows_target_canvas_and_the_transcript_so_far():
    dialog_id, teller = demo_dialog_with_rounds(5)
    at = open_replay(dialog=dialog_id, turn="3")
    assert at.selectbox[0].value == dialog_id
    assert at.slider[0].value == 3
    assert image_captions(at) == ["Teller's target", "Drawer's canvas after round 3"]
    texts = chat_texts(at)
    assert teller[3] in texts
    assert teller[4] not in texts
    assert not at.warning


def test_next_advances_and_the_url_follows():
    dialog_id, teller = demo_dialog_with_rounds(5)
    at = open_replay(dialog=dialog_id, turn="3")
    next_button = next(b for b in at.button if "Next" in b.label)
    next_button.click().run()
    assert not at.exception
    assert at.slider[0].value == 4
    assert at.query_params["turn"] == "4"
    assert "Drawer's canvas after round 4" in image_captions(at)
    assert teller[4] in chat_texts(at)


def test_full_transcript_toggle_shows_later_rounds():
    dialog_id, teller = demo_dialog_with_rounds(5)
    at = open_replay(dialog=dialog_id, turn="2")
    assert teller[4] not in chat_texts(at)
    at.toggle[0].set_value(True).run()
    assert teller[4] in chat_texts(at)


def test_a_bad_dialog_or_turn_gives_a_friendly_warning():
    at = open_replay(dialog="train_99999", turn="2")
    assert any("train_99999" in re.sub(r"\\(.)", r"\1", w.value) for w in at.warning)  # markdown escapes resolved
    assert len(image_captions(at)) == 2

    dialog_id, _ = demo_dialog_with_rounds(3)
    at = open_replay(dialog=dialog_id, turn="abc")
    assert any("abc" in w.value for w in at.warning)
    assert at.slider[0].value == 1


def test_the_peek_is_announced_at_its_round():
    loaded = load_path("codraw", demo_path("codraw"))
    peeked = loaded.dialogs.dropna(subset=["peek_round"]).iloc[0]
    at = open_replay(dialog=peeked["dialog_id"], turn=str(int(peeked["peek_round"])))
    (data,) = player_data(at)
    assert any("peeked at the drawing before this round" in note for note in data["steps"][str(data["step"])]["notes"])


def all_texts(at: AppTest) -> list[str]:
    """Every text the run shows: markdown, captions, metric labels, values and help."""
    texts = [e.value for kind in ("markdown", "caption", "info", "warning") for e in at.get(kind)]
    for metric in at.metric:
        texts += [metric.label, metric.value, metric.proto.help]
    return texts


def test_the_first_round_says_why_it_has_no_stored_score():
    dialog_id, _ = demo_dialog_with_rounds(3)
    at = open_replay(dialog=dialog_id, turn="1")
    stored = next(m for m in at.metric if m.label.startswith("Stored"))
    assert stored.value == "—"
    assert "first round" in stored.proto.help
    assert any("Not scored" in c.value and "first round" in c.value for c in at.caption)
    assert not any("[]" in text for text in all_texts(at))
