"""The HTML replay of the longest real dialogs stays within its size budget: a CoDraw dialog ≤ 1 MB, a
Game Of Sorts round ≤ 2 MB, a Minecraft game ≤ 5 MB (pictures as WebP, see data_access/exports/html.py)."""
from __future__ import annotations

import pytest

from data_access import snapshots
from data_access.corpora import load_source
from data_access.exports.html import dialog_replay_html
from data_access.registry import corpus_module
from data_access.sources import Source

MB = 1_000_000


def _longest(loaded, count):
    pairs = [(count(d, r), d, r) for d in loaded.dialogs["dialog_id"] for r in snapshots.rounds_of(loaded, d)]
    return max(pairs)


@pytest.mark.shared
@pytest.mark.parametrize("corpus, folder, assets, budget", [
    ("codraw", "codraw/CoDraw_1_0.json.gz", "codraw/clipart", 1 * MB),
    ("gos", "game-of-sorts", None, 2 * MB),
    ("minecraft", "minecraft", None, 5 * MB),
])
def test_longest_real_dialog_fits_its_budget(shared_data, real_cache, corpus, folder, assets, budget):
    source = Source(corpus, shared_data / folder, shared_data / assets if assets else None, corpus_module(corpus))
    loaded = load_source(source, cache_root=real_cache)
    if corpus == "codraw":  # the longest dialog by rounds (counting all 10,000 × rounds would be slow)
        longest = loaded.dialogs.sort_values("n_steps").iloc[-1]
        steps, dialog, round_ = int(longest["n_steps"]), longest["dialog_id"], None
    else:
        steps, dialog, round_ = _longest(loaded, lambda d, r: snapshots.step_count(loaded, d, r))
    document = dialog_replay_html(loaded, dialog, round_)
    assert document.count('class="line"') > 0
    assert f'data-steps="{steps}"' in document
    assert len(document.encode("utf-8")) <= budget
