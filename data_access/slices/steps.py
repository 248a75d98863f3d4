"""The replay steps a step slice selects (``steps(…)``, docs/slices.md "Step slices"): one table per corpus, one row
per step, with the corpus's step features (its optional ``step_features``), who acted at the step, and the
published layers' step features joined; and the operations that relate steps in time and to their dialogs, each a
vectorised pass over the whole table (no Python loop per step):

- ``window``: ``next(k, E)`` / ``prev(k, E)``, whether ``E`` holds at a step or within the ``k`` steps after (before)
  it in its group (its round where the corpus has rounds, else its dialog), by a cumulative sum over the table in
  group order (one pass, whatever ``k``);
- ``first`` / ``last``: the first or last step of its dialog or round;
- ``lift``: a step slice's dialogs (``has_step(S)``), ``lower``: a dialog slice's steps (``dialog(D)``);
- ``counts``: rows of another table (utterances, annotations, notes, a run's units) named by ``dialog_id``,
  ``round`` and ``turn``, counted per step.

The table is in the order of the corpus's dialog table, then by round and turn, so a dialog's steps, and a round's,
are contiguous: every group is a range ``start..end`` of rows.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Mapping, Optional

import numpy as np
import pandas as pd

from ..contract import optional, package_of
from .grammar import NEXT, SliceError

KEY_COLUMNS = ("dialog_id", "round", "turn")
WHO_COLUMNS = ("role", "speaker")
NO_ROUND = -1  # a step's round where the corpus has none, in the keys that join other tables to steps


@dataclass(eq=False)
class StepTable:
    """A corpus's replay steps and the groups they fall in (see the module's docstring)."""

    frame: pd.DataFrame  # dialog_id, round (Int64), turn, then the features; RangeIndex
    dialog_rows: np.ndarray  # each step's row in the dialog table (-1: a dialog the table does not have)
    dialog_start: np.ndarray
    dialog_end: np.ndarray
    round_start: np.ndarray  # = the dialog's where the corpus has no rounds
    round_end: np.ndarray
    has_rounds: bool

    def __len__(self) -> int:
        return len(self.frame)

    @functools.cached_property
    def _keys(self) -> pd.MultiIndex:
        return _key_index(self.frame["dialog_id"], self.frame["round"], self.frame["turn"])

    def rows_of(self, dialog_ids, rounds, turns) -> np.ndarray:
        """The step row of each (dialog_id, round, turn) given (-1 where the table has no such step). A round of a
        corpus without rounds is ignored: its steps are named by dialog and turn."""
        if not len(dialog_ids):
            return np.zeros(0, dtype=np.int64)
        if not self.has_rounds:
            rounds = pd.array([pd.NA] * len(dialog_ids), dtype="Int64")
        return np.asarray(self._keys.get_indexer(_key_index(dialog_ids, rounds, turns)), dtype=np.int64)

    def counts(self, dialog_ids, rounds, turns) -> np.ndarray:
        """How many of the rows given fall on each step (0 where none)."""
        rows = self.rows_of(dialog_ids, rounds, turns)
        return np.bincount(rows[rows >= 0], minlength=len(self)).astype(np.int64)

    def lower(self, dialogs: np.ndarray) -> np.ndarray:
        """The steps of the dialogs ``dialogs`` (a boolean mask over the dialog table) keeps."""
        present = self.dialog_rows >= 0
        kept = np.zeros(len(self), dtype=bool)
        kept[present] = np.asarray(dialogs, dtype=bool)[self.dialog_rows[present]]
        return kept

    def lift(self, steps: np.ndarray, n_dialogs: int) -> np.ndarray:
        """The dialogs (a mask over the dialog table's ``n_dialogs`` rows) with at least one step ``steps`` keeps."""
        rows = self.dialog_rows[np.asarray(steps, dtype=bool) & (self.dialog_rows >= 0)]
        return np.bincount(rows, minlength=n_dialogs)[:n_dialogs] > 0

    def steps_per_dialog(self, steps: np.ndarray, n_dialogs: int) -> np.ndarray:
        """How many kept steps each dialog has."""
        rows = self.dialog_rows[np.asarray(steps, dtype=bool) & (self.dialog_rows >= 0)]
        return np.bincount(rows, minlength=n_dialogs)[:n_dialogs]

    def window(self, events: np.ndarray, direction: str, k: int) -> np.ndarray:
        """Whether ``events`` holds at each step or within the ``k`` steps after it (``NEXT``) or before it, inside
        its round (its dialog where the corpus has no rounds): one cumulative sum, whatever ``k``."""
        events = np.asarray(events, dtype=bool)
        k = min(int(k), len(self))  # a window past the table is the whole round; a k of 10^20 overflowed int64
        total = np.concatenate([[0], np.cumsum(events, dtype=np.int64)])
        at = np.arange(len(self), dtype=np.int64)
        if direction == NEXT:
            end = np.minimum(at + k, self.round_end)
            return total[end + 1] - total[at] > 0
        start = np.maximum(at - k, self.round_start)
        return total[at + 1] - total[start] > 0

    def edge(self, which: str, unit: str, title: str) -> np.ndarray:
        """``first(dialog)``, ``last(round)``…: whether each step is the first (last) of its dialog or round."""
        if unit == "round" and not self.has_rounds:
            raise SliceError(f"{title}'s steps are not grouped in rounds (each step's round is empty): use "
                             f"{which}(dialog)")
        start, end = (self.round_start, self.round_end) if unit == "round" else (self.dialog_start, self.dialog_end)
        at = np.arange(len(self), dtype=np.int64)
        return at == (start if which == "first" else end)

    def keys(self, steps: Optional[np.ndarray] = None) -> pd.DataFrame:
        """dialog_id, round and turn of the steps ``steps`` keeps (all of them when None)."""
        frame = self.frame[list(KEY_COLUMNS)]
        return (frame if steps is None else frame[np.asarray(steps, dtype=bool)]).reset_index(drop=True)


def _key_index(dialog_ids, rounds, turns) -> pd.MultiIndex:
    rounds = pd.array(pd.Series(rounds).to_numpy(), dtype="Int64").fillna(NO_ROUND).to_numpy(dtype=np.int64)
    turns = pd.to_numeric(pd.Series(turns), errors="coerce").fillna(-1).to_numpy(dtype=np.int64)
    return pd.MultiIndex.from_arrays([pd.Series(dialog_ids).astype(str).to_numpy(dtype=object), rounds, turns])


def _group_bounds(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For rows sorted by ``codes``: each row's group's first and last row."""
    n = len(codes)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    new = np.ones(n, dtype=bool)
    new[1:] = codes[1:] != codes[:-1]
    starts = np.flatnonzero(new)
    ends = np.concatenate([starts[1:] - 1, [n - 1]])
    group = np.cumsum(new) - 1
    return starts[group].astype(np.int64), ends[group].astype(np.int64)


def said_per_step(rows: np.ndarray, values: pd.Series, n_steps: int) -> np.ndarray:
    """Per step, the distinct ``values`` (a role, a speaker) of the rows that fall on it, as a tuple in the order the
    values first appear (``rows``: each value's step, -1 for none): a bit per distinct value, one pass."""
    codes, names = pd.factorize(values.astype(str), sort=False)
    on = rows >= 0
    if len(names) > 62:  # more than a mask holds: per step, in Python (a corpus of a thousand speakers)
        lists: dict[int, list[str]] = {}
        for row, code in zip(rows[on].tolist(), codes[on].tolist()):
            found = lists.setdefault(row, [])
            if names[code] not in found:
                found.append(names[code])
        said = _tuples([()] * n_steps)
        for row, found in lists.items():
            said[row] = tuple(found)
        return said
    masks = np.zeros(n_steps, dtype=np.int64)
    np.bitwise_or.at(masks, rows[on], np.left_shift(np.int64(1), codes[on].astype(np.int64)))
    distinct, inverse = np.unique(masks, return_inverse=True)
    return _tuples([tuple(names[b] for b in range(len(names)) if int(mask) >> b & 1) for mask in distinct])[inverse]


def _tuples(items: list[tuple]) -> np.ndarray:
    """An object array holding each tuple as one element (numpy would read a list of tuples as a 2-D array)."""
    array = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):
        array[i] = item
    return array


def _message_steps(utterances: pd.DataFrame) -> pd.DataFrame:
    """A corpus without ``step_features``: its steps are the (dialog_id, round, turn) its messages name."""
    keys = utterances[list(KEY_COLUMNS)].copy()
    keys["dialog_id"] = keys["dialog_id"].astype(str)
    keys["round"] = keys["round"].astype("Int64")
    keys["turn"] = pd.to_numeric(keys["turn"], errors="coerce")
    keys = keys.dropna(subset=["turn"]).astype({"turn": "int64"})
    return keys.drop_duplicates().reset_index(drop=True)


def _layer_columns(table: StepTable, layer_frame: pd.DataFrame) -> dict[str, object]:
    """A layer's step features over the steps: no value where the layer has no row; a count column 0 on the steps
    of a dialog the layer covers."""
    rows = table.rows_of(layer_frame["dialog_id"], layer_frame["round"], layer_frame["turn"])
    found = rows >= 0
    covered = table.frame["dialog_id"].isin(pd.unique(layer_frame["dialog_id"].astype(str))).to_numpy(dtype=bool)
    columns: dict[str, object] = {}
    for name in layer_frame.columns:
        if name in KEY_COLUMNS or name in table.frame.columns:
            continue
        values = layer_frame[name].to_numpy()[found]
        if pd.api.types.is_bool_dtype(layer_frame[name]):
            column = pd.array([pd.NA] * len(table), dtype="boolean")
            column[rows[found]] = values.astype(bool)
            columns[name] = column
        elif pd.api.types.is_integer_dtype(layer_frame[name]):
            counts = np.zeros(len(table), dtype=np.int64)
            counts[rows[found]] = values.astype(np.int64)
            columns[name] = pd.arrays.IntegerArray(counts, ~covered)
        else:
            column = np.full(len(table), None, dtype=object)
            column[rows[found]] = values
            columns[name] = column
    return columns


def build_steps(loaded, dialog_ids: pd.Index, layers: Optional[Mapping[str, object]] = None) -> StepTable:
    """The step table of ``loaded`` (its dialogs in the order of ``dialog_ids``, the dialog table's), with the step
    features of each loaded layer (``layers``: layer name -> ``LoadedLayer``)."""
    compute = optional(package_of(loaded), "step_features")
    utterances = loaded.utterances
    frame = compute(loaded) if compute is not None else _message_steps(utterances)
    frame = frame.reset_index(drop=True)
    frame["dialog_id"] = frame["dialog_id"].astype(str).to_numpy(dtype=object)
    frame["round"] = pd.array(frame["round"].to_numpy(), dtype="Int64") if "round" in frame else pd.array(
        [pd.NA] * len(frame), dtype="Int64")
    frame["turn"] = frame["turn"].astype("int64")
    dialog_rows = np.asarray(dialog_ids.get_indexer(frame["dialog_id"]), dtype=np.int64)
    rounds = frame["round"].fillna(NO_ROUND).to_numpy(dtype=np.int64)
    order = np.lexsort((frame["turn"].to_numpy(), rounds, np.where(dialog_rows >= 0, dialog_rows, len(dialog_ids))))
    frame = frame.iloc[order].reset_index(drop=True)
    dialog_rows, rounds = dialog_rows[order], rounds[order]
    dialog_codes = pd.factorize(frame["dialog_id"], sort=False)[0]
    has_rounds = bool(frame["round"].notna().any())
    dialog_start, dialog_end = _group_bounds(dialog_codes)
    round_start, round_end = (_group_bounds(dialog_codes.astype(np.int64) * (int(rounds.max(initial=0)) + 2) + rounds + 1)
                              if has_rounds else (dialog_start, dialog_end))
    ordered = ["dialog_id", "round", "turn"] + [c for c in frame.columns if c not in KEY_COLUMNS]
    table = StepTable(frame[ordered], dialog_rows, dialog_start, dialog_end, round_start, round_end, has_rounds)
    missing = [c for c in WHO_COLUMNS if c not in table.frame.columns]
    if missing and len(utterances):
        rows = table.rows_of(utterances["dialog_id"], utterances["round"], utterances["turn"])
        for column in missing:
            table.frame.insert(3, column, said_per_step(rows, utterances[column], len(table)))
    _join_layers(table, layers or {})
    return table


def _join_layers(table: StepTable, layers: Mapping[str, object]) -> None:
    from ..layers import layer_module

    for name, layer in layers.items():
        compute = getattr(layer_module(name), "step_features", None)
        if compute is None:
            continue
        for column, values in _layer_columns(table, compute(layer)).items():
            table.frame[column] = values


__all__ = ["KEY_COLUMNS", "StepTable", "build_steps", "said_per_step"]
