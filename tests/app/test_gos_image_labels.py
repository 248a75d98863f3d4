"""A Game Of Sorts image has one label everywhere: the tile, the lock caption under a board, the ranks and
transcript, and the rank-sum chart all say the same short label (not the raw file name)."""
from __future__ import annotations

from corpora.gos.data.figures import rank_sum_chart
from corpora.gos.data.view import image_labels, image_short_labels, replay_step
from data_access.corpora import load_configured
from tests.app.transcript_lines import player_captions

from .conftest import open_page


def _a_pending_lock():
    loaded = load_configured("gos")
    steps = loaded.frames["steps"]
    row = steps[steps["pending_a"].notna()].iloc[0]
    return loaded, row


def test_the_lock_caption_uses_the_tiles_label():
    loaded, row = _a_pending_lock()
    labels = image_short_labels(loaded)
    raw = row["pending_a"]
    assert labels[raw] != raw  # the raw id is longer than its label
    view = replay_step(loaded, row["interaction_id"], int(row["step"]), int(row["round"]))
    board = next(b for b in view.boards if b.pending == raw)
    assert board.pending_label == labels[raw]
    game = loaded.frames["rounds"].set_index(["interaction_id", "round"]).loc[(row["interaction_id"], row["round"]), "game_id"]
    assert image_labels(loaded, game)[raw].short_id == labels[raw]

    at = open_page("replay", corpus="gos", dialog=row["interaction_id"], round=str(int(row["round"])),
                   turn=str(int(row["step"])))
    captions = player_captions(at)  # the boards, in the step player (plain text, no markdown escapes)
    lock = [c for c in captions if "pending lock on" in c]
    assert lock and all(raw not in c for c in lock) and any(c.endswith(f"pending lock on {labels[raw]}") for c in lock)


def test_labels_are_unique_and_the_rank_sum_chart_uses_them():
    loaded = load_configured("gos")
    labels = image_short_labels(loaded)
    assert len(set(labels.values())) == len(labels)
    chart = rank_sum_chart(loaded)
    shown = {str(t) for row in chart.figure.data[0].text for t in row if t is not None and str(t) != "nan"}
    assert shown and shown <= set(labels.values())
