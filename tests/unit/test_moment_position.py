"""Where a replay step stands among a step slice's moments (``ui.slices.moments.moment_position``, issue 46): the
Replay's "moment k of N" and each side of Compare, on hand-made moments with and without rounds."""
from __future__ import annotations

import pandas as pd

from ui.slices.moments import moment_position, moment_said


def _moments(rounds) -> pd.DataFrame:
    return pd.DataFrame({"dialog_id": ["a", "a", "b"], "round": pd.array(rounds, dtype="Int64"), "turn": [2, 2, 5]})


def test_a_step_is_found_by_dialog_round_and_turn():
    keys = _moments([1, 2, 1])
    assert moment_position(keys, "a", 2, 2) == 1  # the same turn in another round is another moment
    assert moment_position(keys, "a", 1, 2) == 0 and moment_position(keys, "b", 1, 5) == 2
    assert moment_position(keys, "a", 3, 2) is None and moment_position(keys, "c", 1, 2) is None
    assert moment_said(keys, "a", 2, 2) == "moment 2 of 3 in the slice"
    assert moment_said(keys, "a", 2, 3) == "this step is not one of the slice's 3 moments"
    assert moment_said(None, "a", 2, 2) == ""


def test_without_rounds_the_round_given_is_ignored():
    keys = _moments([None, None, None])
    assert moment_position(keys, "b", None, 5) == 2 and moment_position(keys, "b", 4, 5) == 2
    assert moment_position(keys.iloc[:0], "a", None, 2) is None
