"""``ui.cache_keys.plain_key``: the one string a derived cache entry is keyed by when its arguments are plain values
(Streamlit's hasher took about 0.6 ms a call, 7 to 19 calls a Replay run). It must tell apart every two argument
tuples a cached function could answer differently, and leave anything else to Streamlit's hasher."""
from __future__ import annotations

import numpy as np
import pandas as pd

from data_access import snapshots
from ui.cache_keys import CorpusKey, plain_key

KEY = CorpusKey("gos", "/data/gos", None)


def test_values_that_differ_make_different_keys():
    variants = [(1,), (1.0,), (True,), ("1",), (None,), ("None",), ((1,),), (1, None), ("a", 2), ("a,", 2), ()]
    keys = {plain_key(snapshots.step_count, KEY, args) for args in variants}
    assert None not in keys and len(keys) == len(variants)
    assert plain_key(snapshots.step_count, KEY, ("d", 3)) == plain_key(snapshots.step_count, KEY, ("d", 3))
    others = {plain_key(snapshots.step_count, CorpusKey("gos", "/elsewhere", None), ("d", 3)),
              plain_key(snapshots.dialog_choices, KEY, ("d", 3)), plain_key(snapshots.step_count, KEY, ("d", 3))}
    assert len(others) == 3  # another source, another function: another entry


def test_anything_but_plain_values_is_left_to_streamlits_hasher():
    for odd in (np.int64(3), pd.DataFrame({"a": [1]}), ["list"], {"a": 1}, (1, [2])):
        assert plain_key(snapshots.step_count, KEY, ("d", odd)) is None
