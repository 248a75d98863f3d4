"""The calls a slice's tests make (``score(RUN)``, ``code(LABEL)``, ``text(WORDS)``, ``first(dialog)``…): each gives a
value per row of the level it is read at, a dialog or a replay step (docs/slices.md, "What a test reads").

At the dialog level a count is over the dialog (its annotations, notes, matching utterances) and a run's value is its
Browse column; at the step level a count is over the step (the rows naming its dialog, round and turn) and a run's
value is its score at the step (``runs.browse_columns.step_run_scores``). ``first`` and ``last`` exist at the step
level only.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from ..coding.label_filter import LabelFilter, label_counts, label_rows
from ..runs.browse_columns import GAP, SCORE, column_name
from ..search import InvalidQuery, QueryTooSlow, compile_query
from .budget import EvaluationBudget
from .data import SliceData
from .grammar import DIALOG, Feature, SliceError, format_value

# The calls a slice may make: name -> (least, most arguments, what they are)
CALLS = {
    "score": (1, 1, "score(RUN): a loaded run's score of the dialog (of the step, in a step slice)"),
    "gap": (1, 1, "gap(RUN): a loaded run's score minus the humans' on the same units"),
    "code": (1, 3, "code(LABEL[, CODER[, CODEBOOK]]): annotations of LABEL on the dialog or step (CODER: a coder, "
                   "gold, or \"\" for any coder)"),
    "tag": (1, 1, "tag(TAG): your notes with TAG on the dialog or step"),
    "text": (1, 2, "text(WORDS[, ROLE]): utterances (of ROLE) with every word"),
    "re": (1, 2, "re(PATTERN[, ROLE]): utterances (of ROLE) matching the RE2 regular expression"),
    "first": (1, 1, "first(dialog) / first(round): the first step of its dialog or round (in a step slice)"),
    "last": (1, 1, "last(dialog) / last(round): the last step of its dialog or round (in a step slice)"),
}
COUNTS = {"code", "tag", "text", "re"}  # counts: bare, they mean "at least one"
EDGES = ("first", "last")
EDGE_UNITS = ("dialog", "round")


def _text(feature: Feature) -> str:
    return f"{feature.name}({', '.join(format_value(v) for v in feature.args or ())})"


def call(feature: Feature, data: SliceData, level: str, budget: EvaluationBudget) -> pd.Series:
    """The value of call ``feature`` per row of ``level``'s table (dialogs or steps)."""
    if feature.name not in CALLS:
        raise SliceError(f"“{feature.name}(…)” is not a test; the tests are {', '.join(CALLS)}")
    least, most, usage = CALLS[feature.name]
    args = feature.args or ()
    if not least <= len(args) <= most or not all(isinstance(a, str) for a in args):
        raise SliceError(f"“{_text(feature)}” does not fit {usage}")
    strings: tuple[str, ...] = tuple(str(a) for a in args)
    if feature.name in EDGES:
        if level == DIALOG:
            raise SliceError(f"{_text(feature)} tests steps: use it inside steps(…)")
        if strings[0] not in EDGE_UNITS:
            raise SliceError(f"“{_text(feature)}” does not fit {usage}")
        return pd.Series(data.steps.edge(feature.name, strings[0], data.title))
    if feature.name in ("score", "gap"):
        return _run_values(feature.name, strings[0], data, level)
    if feature.name == "code":
        annotations = data.annotations if data.annotations is not None else pd.DataFrame()
        if level == DIALOG:
            return _per_dialog(data, label_counts(annotations, data.corpus, LabelFilter(*strings)))
        return _per_step(data, label_rows(annotations, data.corpus, LabelFilter(*strings)))
    if feature.name == "tag":
        rows = _tagged(data.notes, strings[0])
        if level == DIALOG:
            return _per_dialog(data, rows.groupby(rows["dialog_id"].astype(str)).size())
        return _per_step(data, rows)
    hits = _text_hits(data, budget, feature.name, *strings)
    if level == DIALOG:
        return _per_dialog(data, hits.groupby(hits["dialog_id"].astype(str)).size())
    return _per_step(data, hits)


def _per_dialog(data: SliceData, counts: pd.Series) -> pd.Series:
    """Counts by dialog id over every dialog (0 where none)."""
    return pd.Series(counts.reindex(data.ids).fillna(0).to_numpy(dtype="int64"))


def _per_step(data: SliceData, rows: pd.DataFrame) -> pd.Series:
    """The rows (with dialog_id, round, turn) counted on each step (0 where none; a row on the whole dialog, with
    no turn, is on no step)."""
    if rows.empty or "turn" not in rows.columns:
        return pd.Series(np.zeros(len(data.steps), dtype="int64"))
    rows = rows[pd.to_numeric(rows["turn"], errors="coerce").notna().to_numpy()]
    return pd.Series(data.steps.counts(rows["dialog_id"], rows["round"] if "round" in rows else
                                       pd.array([pd.NA] * len(rows), dtype="Int64"), rows["turn"]))


def _run_values(what: str, run: str, data: SliceData, level: str) -> pd.Series:
    loaded = data.runs if level == DIALOG else data.step_runs
    if run not in loaded:
        listed = ", ".join(loaded) or "none"
        raise SliceError(f"no run “{run}” of {data.title} is loaded (loaded: {listed})")
    frame = loaded[run]
    if level == DIALOG:
        column = column_name(run, SCORE if what == SCORE else GAP)
        if column not in frame.columns:
            raise SliceError(f"run “{run}” has no gap: {data.title} has no human score on the same units")
        return pd.Series(frame[column].reindex(data.ids).to_numpy(dtype=float))
    rows = data.steps.rows_of(frame["dialog_id"], frame["round"], frame["turn"])
    values = frame["score"].to_numpy(dtype=float)
    if what == GAP:
        if frame["humans"].isna().all():
            raise SliceError(f"run “{run}” has no gap: {data.title} has no human score on the same units")
        values = values - frame["humans"].to_numpy(dtype=float)
    found = np.full(len(data.steps), np.nan)
    found[rows[rows >= 0]] = values[rows >= 0]
    return pd.Series(found)


def _tagged(notes: Optional[pd.DataFrame], tag: str) -> pd.DataFrame:
    """The notes that carry ``tag``."""
    from ..store.notes import normalize_tags

    if notes is None or notes.empty:
        return pd.DataFrame({"dialog_id": pd.Series(dtype="str"), "round": pd.Series(dtype="Int64"),
                             "turn": pd.Series(dtype="Int64")})
    wanted = normalize_tags(tag)
    if not wanted:
        raise SliceError("tag(…) needs a tag")
    has = notes["tags"].map(lambda tags: wanted[0] in (tags if isinstance(tags, (list, tuple)) else ()))
    return notes[has.to_numpy(dtype=bool)]


def _text_hits(data: SliceData, budget: EvaluationBudget, mode: str, query: str, role: str = "") -> pd.DataFrame:
    """The utterances of the corpus (of ``role``) that ``text(query)`` / ``re(query)`` matches."""
    index = data.index()
    within = None
    if role:
        roles = index.frame["role"].astype(str)
        within = (roles.str.casefold() == role.casefold()).to_numpy()
        if not within.any():
            known = sorted(set(roles[index.frame["corpus"] == data.corpus]))
            raise SliceError(f"{data.title} has no role “{role}” (its roles: {', '.join(known)})")
    try:
        compiled = compile_query(query, "words" if mode == "text" else "regex")
        # the slice's one deadline (and its stop) between the chunks of utterances, beside the test's own limit
        rows = index.matching_rows(compiled, corpora=[data.corpus], within=within,
                                   check=lambda: budget.check(f"{mode}({format_value(query)})"))
    except (InvalidQuery, QueryTooSlow) as exc:
        raise SliceError(f"{mode}({format_value(query)}): {exc}") from None
    return index.frame.iloc[rows]


__all__ = ["CALLS", "COUNTS", "call"]
