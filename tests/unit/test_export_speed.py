"""Exports stay quick: a Game Of Sorts round's pictures read the round's rows once (not once per step), and
the real corpus's longest round exports as HTML within its target (3 s; CPU time, so a busy machine does not
fail it)."""
from __future__ import annotations

import time

import pytest

from corpora.gos.data import view as gos_view
from data_access import snapshots
from data_access.corpora import load_configured, load_path
from data_access.exports import html as export_html


def test_a_round_s_snapshots_read_its_rows_once(monkeypatch):
    loaded = load_configured("gos")
    dialog = loaded.dialogs["dialog_id"].iloc[0]
    reads = []
    original = gos_view._read_round
    monkeypatch.setattr(gos_view, "_read_round", lambda *args: reads.append(args[1:]) or original(*args))
    gos_view._ROUNDS.clear()
    n_steps = snapshots.step_count(loaded, dialog, 1)
    for step in range(1, n_steps + 1):
        snapshots.snapshot(loaded, dialog, step, 1)
    view = gos_view.replay_step(loaded, dialog, n_steps, 1)
    assert reads == [(dialog, 1)] and view.step == n_steps
    assert gos_view.replay_step(loaded, dialog, 1, 99) is None  # an unknown round is still None


@pytest.mark.shared
def test_the_longest_real_round_exports_within_three_seconds(shared_data, real_cache):
    loaded = load_path("gos", shared_data / "game-of-sorts", cache_root=real_cache)
    rounds = loaded.frames["steps"].groupby(["interaction_id", "round"]).size()
    (dialog, round_number) = rounds.idxmax()
    started = time.process_time()
    document = export_html.dialog_replay_html(loaded, dialog, int(round_number))
    assert time.process_time() - started < 3.0
    assert document.count('<img class="frame"') > 10
