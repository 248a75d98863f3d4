"""Worst cases first (pure): a run's units ranked by its unit score, lowest first, or by its gap to a second
run or the humans, largest shortfall first; each with the replay step where the run differs most from the
humans (the corpus's ``RunScoring.worst_steps``); and the case list a Replay link carries (``cases=``), capped
so that the link stays short.

Order, and why: with a comparison the gap is A − B on the units both have, the most negative first; without
one the run's own score, the lowest first. Ties fall to the run's own score (lower first), then to more
errors first where the unit counts them (``fp`` + ``fn``: a Minecraft sample with nothing to do and nothing done
scores F1 0 like one with every action wrong), then to the unit's id, so the same runs always give the same
list.
"""
from __future__ import annotations

from typing import Iterable, Optional, Sequence
from urllib.parse import unquote, urlencode

import numpy as np
import pandas as pd

from ..common import LoadedCorpus
from ..contract import scoring_of
from ..links import replay_link
from . import LoadedRun
from .analysis import paired_units

CASES_PARAM, CASE_PARAM, VERSUS_PARAM = "cases", "case", "vs"
MAX_CASES = 100  # cases a link carries: enough to work through in a sitting, a link a few kB long
MAX_CASES_CHARS = 6000  # ... and at most this many characters of ids (long ids get fewer cases)
CASE_COLUMNS = ["rank", "unit", "dialog_id", "value", "other", "gap", "turn", "round"]


def ranked_cases(units_a: pd.DataFrame, units_b: Optional[pd.DataFrame] = None) -> pd.DataFrame:
    """``units_a`` (``RunScoring.units`` of the run) worst first: columns ``CASE_COLUMNS`` (``other`` and ``gap``
    NaN without ``units_b``; with it only the units both have, ``gap`` = value − other) plus the unit's other
    columns; ``rank`` counts from 1."""
    if units_b is None:
        frame = units_a.assign(other=np.nan, gap=np.nan)
        keys = ["value"]
    else:
        frame = paired_units(units_a, units_b).rename(columns={"value_a": "value", "value_b": "other", "difference": "gap"})
        keys = ["gap", "value"]
    frame = frame.assign(_errors=-(frame["fp"] + frame["fn"]) if {"fp", "fn"} <= set(frame.columns) else 0,
                         _unit=frame["unit"].astype(str))
    frame = frame.sort_values([*keys, "_errors", "_unit"], kind="mergesort", na_position="last")
    frame = frame.drop(columns=["_errors", "_unit"]).reset_index(drop=True)
    for column in ("turn", "round"):
        if column not in frame.columns:
            frame[column] = pd.array([pd.NA] * len(frame), dtype="Int64")
    frame.insert(0, "rank", np.arange(1, len(frame) + 1))
    rest = [c for c in frame.columns if c not in CASE_COLUMNS]
    return frame[CASE_COLUMNS + rest]


def worst_steps(corpus: LoadedCorpus, run: LoadedRun) -> pd.DataFrame:
    """unit -> ``turn``, ``round`` (Int64): where the Replay opens each unit of ``run`` (the corpus's
    ``worst_steps``)."""
    steps = scoring_of(run).worst_steps(corpus, run)
    return pd.DataFrame({"unit": steps["unit"].astype(str), "turn": steps["turn"].astype("Int64"),
                         "round": steps["round"].astype("Int64")}).drop_duplicates("unit").reset_index(drop=True)


def at_worst_steps(cases: pd.DataFrame, steps: pd.DataFrame) -> pd.DataFrame:
    """``cases`` with ``turn`` and ``round`` from ``worst_steps`` (a unit it does not know keeps its own)."""
    placed = cases.merge(steps.rename(columns={"turn": "_turn", "round": "_round"}), on="unit", how="left")
    placed["turn"] = placed["_turn"].astype("Int64").fillna(placed["turn"].astype("Int64"))
    placed["round"] = placed["_round"].astype("Int64").fillna(placed["round"].astype("Int64"))
    return placed.drop(columns=["_turn", "_round"])


def at_moments(cases: pd.DataFrame, moments: pd.DataFrame) -> np.ndarray:
    """Which ``cases`` open at one of ``moments`` (a step slice's dialog_id, round, turn): the step each case opens
    at is a moment of the slice; the round is compared only where the moments have rounds; a case without a step
    is at none."""
    if cases.empty or moments.empty:
        return np.zeros(len(cases), dtype=bool)
    with_rounds = bool(moments["round"].notna().any())

    def keys(frame: pd.DataFrame) -> pd.MultiIndex:
        rounds = pd.array(frame["round"] if with_rounds else [pd.NA] * len(frame), dtype="Int64").fillna(-1)
        turns = pd.array(pd.to_numeric(frame["turn"], errors="coerce"), dtype="Int64").fillna(-1)
        return pd.MultiIndex.from_arrays([frame["dialog_id"].astype(str).to_numpy(dtype=object),
                                          np.asarray(rounds, dtype=np.int64), np.asarray(turns, dtype=np.int64)])

    has_step = pd.to_numeric(cases["turn"], errors="coerce").notna().to_numpy()
    return keys(cases).isin(keys(moments)) & has_step


# --------------------------------------------------------------------------------------- the list in a link

def _escaped(unit: str) -> str:
    # Only what the list's syntax needs: "%" first, then the separator. Ids stay readable in the address bar.
    return unit.replace("%", "%25").replace(",", "%2C")


def capped(units: Iterable) -> list[str]:
    """The first units a link carries: at most ``MAX_CASES``, and at most ``MAX_CASES_CHARS`` characters."""
    kept: list[str] = []
    length = 0
    for unit in units:
        length += len(_escaped(str(unit))) + 1
        if len(kept) >= MAX_CASES or length > MAX_CASES_CHARS + 1:
            break
        kept.append(str(unit))
    return kept


def encode_cases(units: Sequence[str]) -> str:
    """The ``cases`` value of a link: the unit ids, comma-separated (a comma or % inside an id escaped)."""
    return ",".join(_escaped(unit) for unit in capped(units))


def decode_cases(text: Optional[str]) -> list[str]:
    """The unit ids of a ``cases`` value (``encode_cases`` read back), duplicates and empty entries dropped,
    capped as ``capped`` caps (a hand-made link is bounded too)."""
    if not text:
        return []
    units = list(dict.fromkeys(unquote(part) for part in text.split(",") if part))
    return capped(units)


def case_params(corpus: str, case: pd.Series, run: str, cases: str, number: int, versus: Optional[str],
                in_rounds: bool) -> dict[str, str]:
    """The Replay's URL parameters for case ``number`` (from 1) of the list ``cases`` (``encode_cases``): its
    dialog at its worst step, the run, and what the list was ranked against (``versus``, None: the run's own
    score)."""
    params = {"corpus": corpus, "dialog": str(case["dialog_id"])}
    if in_rounds and not pd.isna(case["round"]):
        params["round"] = str(int(case["round"]))
    if not pd.isna(case["turn"]):
        params["turn"] = str(int(case["turn"]))
    params.update({"run": run, CASES_PARAM: cases, CASE_PARAM: str(number)})
    if versus:
        params[VERSUS_PARAM] = versus
    return params


def case_link(params: dict[str, str]) -> str:
    """The root-relative Replay link of ``case_params``."""
    base = replay_link(params["corpus"], params["dialog"])
    rest = {k: v for k, v in params.items() if k not in ("corpus", "dialog")}
    return f"{base}&{urlencode(rest)}" if rest else base
