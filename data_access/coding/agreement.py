"""Inter-coder agreement as pure functions: Cohen's kappa, Fleiss' kappa, Krippendorff's alpha (nominal,
missing data allowed; computed by the ``krippendorff`` package), seeded bootstrap intervals, span agreement
(exact and by overlap) and referent agreement (same set), and the tables that turn annotation frames into their
inputs, per label and overall.

Conventions: a *reliability matrix* has one row per coder and one column per unit (item); a cell holds the
label (any hashable) or ``None`` for "not coded by this coder". Statistics are ``nan`` when undefined (no
pairable units, or no variation at all where the formula divides by it) and the caller shows "n/a".
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Hashable, Iterable, Mapping, Optional, Sequence

import krippendorff
import numpy as np
import pandas as pd

Matrix = Sequence[Sequence[Optional[Hashable]]]


def _missing(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


# -- coefficients ------------------------------------------------------------------------------------------------

def cohen_kappa(first: Sequence, second: Sequence) -> float:
    """Cohen's kappa of two coders over the units both coded (pairs with a missing value are left out)."""
    if len(first) != len(second):
        raise ValueError(f"the two coders must rate the same units ({len(first)} vs {len(second)} values)")
    pairs = [(a, b) for a, b in zip(first, second) if not _missing(a) and not _missing(b)]
    n = len(pairs)
    if n == 0:
        return float("nan")
    observed = sum(a == b for a, b in pairs) / n
    count_a, count_b = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(count_a[c] * count_b[c] for c in count_a) / (n * n)
    if expected == 1:
        return float("nan") if observed != 1 else 1.0 if len(count_a) > 1 else float("nan")
    return (observed - expected) / (1 - expected)


def fleiss_kappa_from_counts(counts: Sequence[Sequence[int]] | np.ndarray) -> float:
    """Fleiss' kappa from a units x categories table of how many coders chose each category.
    Every unit must have the same number of ratings (Fleiss' design)."""
    table = np.asarray(counts, dtype=float)
    if table.ndim != 2 or table.shape[0] == 0:
        return float("nan")
    raters = table.sum(axis=1)
    if not np.all(raters == raters[0]) or raters[0] < 2:
        raise ValueError("Fleiss' kappa needs the same number (>= 2) of ratings on every unit")
    n_units, m = table.shape[0], raters[0]
    p_j = table.sum(axis=0) / (n_units * m)
    p_i = ((table * table).sum(axis=1) - m) / (m * (m - 1))
    p_bar, p_e = p_i.mean(), (p_j * p_j).sum()
    if p_e == 1:
        return float("nan")
    return float((p_bar - p_e) / (1 - p_e))


def fleiss_kappa(matrix: Matrix) -> float:
    """Fleiss' kappa from a reliability matrix (coders x units); only units coded by every coder count."""
    rows = [list(r) for r in matrix]
    if not rows:
        return float("nan")
    units = [col for col in zip(*rows) if not any(_missing(v) for v in col)]
    categories = sorted({v for col in units for v in col}, key=repr)
    index = {c: i for i, c in enumerate(categories)}
    counts = np.zeros((len(units), len(categories)))
    for u, col in enumerate(units):
        for value in col:
            counts[u, index[value]] += 1
    return fleiss_kappa_from_counts(counts) if len(units) else float("nan")


def _value_counts(matrix: Matrix) -> np.ndarray:
    """Units x categories: how many coders put each category on each unit (missing values count nowhere).
    Categories are any hashable labels (tuples too), numbered in the order they first appear."""
    rows = [list(r) for r in matrix]
    n_units = len(rows[0]) if rows else 0
    index: dict = {}
    cells = [(u, index.setdefault(v, len(index))) for row in rows for u, v in enumerate(row) if not _missing(v)]
    counts = np.zeros((n_units, max(len(index), 1)), dtype=float)
    for unit, category in cells:
        counts[unit, category] += 1
    return counts


def _alpha_of_counts(counts: np.ndarray) -> float:
    """Nominal alpha from a units x categories table; nan where it is undefined: no unit with two values (nothing
    pairable), or a single category among the pairable units (no variation, so chance disagreement is 0)."""
    pairable = counts[counts.sum(axis=1) >= 2]
    if len(pairable) == 0 or np.count_nonzero(pairable.sum(axis=0)) < 2:
        return float("nan")
    return float(krippendorff.alpha(value_counts=pairable, level_of_measurement="nominal"))


def krippendorff_alpha_nominal(matrix: Matrix) -> float:
    """Krippendorff's alpha for nominal data; missing values allowed (units with fewer than two values are
    not pairable and left out), any number of coders."""
    return _alpha_of_counts(_value_counts(matrix))


def percent_agreement(matrix: Matrix) -> float:
    """Share of agreeing coder pairs over all pairable pairs of values within units."""
    agree = total = 0
    for col in zip(*[list(r) for r in matrix]):
        values = [v for v in col if not _missing(v)]
        for i in range(len(values)):
            for j in range(i + 1, len(values)):
                total += 1
                agree += values[i] == values[j]
    return agree / total if total else float("nan")


# -- bootstrap -------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Estimate:
    value: float
    low: float
    high: float
    n_units: int

    def as_dict(self) -> dict:
        return {"value": self.value, "low": self.low, "high": self.high, "n_units": self.n_units}


def bootstrap(statistic: Callable[[Matrix], float], matrix: Matrix, *, n_resamples: int = 1000, seed: int = 0,
              level: float = 0.95) -> Estimate:
    """The statistic with a percentile bootstrap interval, resampling units (columns) with replacement.
    Seeded: the same input, seed and ``n_resamples`` give the same interval. Resamples where the statistic is
    undefined are left out; the interval is nan when none is defined. Krippendorff's alpha is resampled as a
    table of value counts (``alpha_bootstrap``: the same interval, about ten times as fast)."""
    if statistic is krippendorff_alpha_nominal:
        return alpha_bootstrap(matrix, n_resamples=n_resamples, seed=seed, level=level)
    rows = [list(r) for r in matrix]  # plain lists: cells may be tuples, which numpy would unpack
    n_units = len(rows[0]) if rows else 0
    if n_units == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    rng = np.random.default_rng(seed)
    draws = [statistic([[row[i] for i in rng.integers(0, n_units, n_units)] for row in rows])
             for _ in range(n_resamples)]
    return _percentile_interval(statistic(rows), draws, n_units, level)


def alpha_bootstrap(matrix: Matrix, *, n_resamples: int = 1000, seed: int = 0, level: float = 0.95) -> Estimate:
    """Krippendorff's alpha (nominal) with the percentile bootstrap interval of ``bootstrap``: the same units
    drawn for the same seed, each resample a selection of rows of the units x categories table."""
    counts = _value_counts(matrix)
    n_units = len(counts) if matrix and len(matrix[0]) else 0
    if n_units == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    rng = np.random.default_rng(seed)
    draws = [_alpha_of_counts(counts[rng.integers(0, n_units, n_units)]) for _ in range(n_resamples)]
    return _percentile_interval(_alpha_of_counts(counts), draws, n_units, level)


def _percentile_interval(value: float, results: Sequence[float], n_units: int, level: float) -> Estimate:
    draws = [result for result in results if not math.isnan(result)]
    if not draws:
        return Estimate(value, float("nan"), float("nan"), n_units)
    tail = (1 - level) / 2
    low, high = np.quantile(draws, [tail, 1 - tail])
    return Estimate(float(value), float(low), float(high), n_units)


# -- spans and referents ----------------------------------------------------------------------------------------

Span = tuple  # (unit key, start, end, label) — the unit key names the utterance (dialog, round, turn, utterance)


@dataclass(frozen=True)
class SpanAgreement:
    matched: int
    only_first: int
    only_second: int
    pairs: tuple = ()  # the matched (first span, second span) pairs

    @property
    def f1(self) -> float:
        total = 2 * self.matched + self.only_first + self.only_second
        return 2 * self.matched / total if total else float("nan")

    @property
    def precision(self) -> float:  # of the second coder's spans against the first
        n = self.matched + self.only_second
        return self.matched / n if n else float("nan")

    @property
    def recall(self) -> float:
        n = self.matched + self.only_first
        return self.matched / n if n else float("nan")


def _overlap(a: Span, b: Span) -> int:
    return max(0, min(a[2], b[2]) - max(a[1], b[1]))


def span_agreement(first: Iterable[Span], second: Iterable[Span], *, mode: str = "exact",
                   min_overlap: float = 0.0) -> SpanAgreement:
    """How many spans the two coders share. ``exact``: same unit, offsets and label. ``overlap``: same unit and
    label and overlapping characters (with ``min_overlap`` > 0: overlap / union of the two spans at least that),
    matched one-to-one, the pairs with the largest overlap / union first (so nested spans pair with their
    closest counterpart)."""
    a, b = sorted(set(first), key=repr), sorted(set(second), key=repr)
    if mode == "exact":
        both = sorted(set(a) & set(b), key=repr)
        return SpanAgreement(len(both), len(a) - len(both), len(b) - len(both), tuple((x, x) for x in both))
    if mode != "overlap":
        raise ValueError(f"mode must be exact or overlap; got {mode!r}")
    candidates = []
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            if x[0] == y[0] and x[3] == y[3]:
                shared = _overlap(x, y)
                union = max(x[2], y[2]) - min(x[1], y[1])
                if shared > 0 and shared / union >= min_overlap:
                    candidates.append((-shared / union, -shared, i, j))  # closest pairs first (IoU, then size)
    used_a, used_b, pairs = set(), set(), []
    for _, _, i, j in sorted(candidates):
        if i not in used_a and j not in used_b:
            used_a.add(i)
            used_b.add(j)
            pairs.append((a[i], b[j]))
    return SpanAgreement(len(used_a), len(a) - len(used_a), len(b) - len(used_b), tuple(pairs))


def referent_agreement(first: dict, second: dict) -> dict:
    """Over the items both coders linked (item key -> set of referent ids): share with the same set, and mean
    Jaccard overlap of the sets."""
    shared = [k for k in first if k in second]
    if not shared:
        return {"items": 0, "same_set": float("nan"), "mean_jaccard": float("nan")}
    same = sum(set(first[k]) == set(second[k]) for k in shared)
    jaccard = [len(set(first[k]) & set(second[k])) / len(set(first[k]) | set(second[k]))
               if set(first[k]) | set(second[k]) else 1.0 for k in shared]
    return {"items": len(shared), "same_set": same / len(shared), "mean_jaccard": float(np.mean(jaccard))}


# -- from annotation frames ----------------------------------------------------------------------------------------

UNIT_KEYS = ["corpus", "dialog_id", "round", "turn"]


def reliability_matrix(frame: pd.DataFrame, coders: Sequence[str], units: Optional[Sequence] = None,
                       label: Optional[str] = None, assigned: Optional[Mapping[str, set]] = None) -> tuple[list[list], list]:
    """Coders x units from label annotations of one scope (``frame``: columns UNIT_KEYS, ``coder``,
    ``label``). A coder's value for a unit is the set of labels they put there (as a sorted tuple; "none" when
    the unit was assigned to them — in ``units`` — but they put no label). With ``label`` the value is binary:
    whether they put that label. Units nobody was assigned are those anyone coded. ``assigned`` (coder -> units)
    narrows the assignment per coder, as a coding queue does: a unit outside a coder's set is missing for them."""
    keys = [tuple(None if _missing(v) else v for v in row) for row in frame[UNIT_KEYS].itertuples(index=False)]
    coded: dict = {}
    for key, coder, value in zip(keys, frame["coder"], frame["label"]):
        coded.setdefault((coder, key), set()).add(value)
    all_units = list(dict.fromkeys(units if units is not None else keys))
    coded_by = {coder: {k for (c, k) in coded if c == coder} for coder in coders}
    dialogs_of = {coder: {k[:2] for k in keys} for coder, keys in coded_by.items()}
    matrix = []
    for coder in coders:
        row: list = []
        for unit in all_units:
            labels = coded.get((coder, unit))
            if assigned is not None and unit not in assigned.get(coder, ()):
                row.append(None)
                continue
            if labels is None and units is None and unit not in coded_by[coder]:
                # not assigned explicitly: a coder who coded nothing in this dialog counts as missing
                dialog_seen = unit[:2] in dialogs_of[coder]  # a set: scanning the coder's units made this quadratic
                row.append(None if not dialog_seen else (False if label else ("none",)))
                continue
            labels = labels or set()
            row.append((label in labels) if label else (tuple(sorted(labels)) or ("none",)))
        matrix.append(row)
    return matrix, all_units


def agreement_table(frame: pd.DataFrame, coders: Sequence[str], *, n_resamples: int = 500, seed: int = 0,
                    units: Optional[Sequence] = None, assigned: Optional[Mapping[str, set]] = None) -> pd.DataFrame:
    """Per label and overall: units, coders, percent agreement, Cohen's kappa (two coders), Fleiss' kappa and
    Krippendorff's alpha (nominal) with bootstrap intervals (``alpha_low``/``alpha_high``). Units are the
    pairable ones: those at least two coders have a value for (a unit nobody else finished says nothing about
    agreement, so it neither counts in ``units`` nor is drawn by the bootstrap)."""
    rows = []
    labels = sorted(frame["label"].unique())
    for name in [None, *labels]:
        matrix, _ = reliability_matrix(frame, coders, units, label=name, assigned=assigned)
        pairable = [i for i in range(len(matrix[0]) if matrix else 0) if sum(r[i] is not None for r in matrix) >= 2]
        matrix = [[r[i] for i in pairable] for r in matrix]
        alpha = bootstrap(krippendorff_alpha_nominal, matrix, n_resamples=n_resamples, seed=seed)
        row = {"label": "(overall)" if name is None else name, "units": alpha.n_units,
               "percent_agreement": percent_agreement(matrix), "alpha": alpha.value,
               "alpha_low": alpha.low, "alpha_high": alpha.high,
               "fleiss_kappa": fleiss_kappa(matrix) if len(coders) >= 2 else float("nan")}
        if len(coders) == 2:
            kappa = bootstrap(lambda m: cohen_kappa(m[0], m[1]), matrix, n_resamples=n_resamples, seed=seed)
            row.update(cohen_kappa=kappa.value, kappa_low=kappa.low, kappa_high=kappa.high)
        else:
            row.update(cohen_kappa=float("nan"), kappa_low=float("nan"), kappa_high=float("nan"))
        rows.append(row)
    return pd.DataFrame(rows, columns=["label", "units", "percent_agreement", "cohen_kappa", "kappa_low",
                                       "kappa_high", "fleiss_kappa", "alpha", "alpha_low", "alpha_high"])


def spans_of(frame: pd.DataFrame) -> set:
    """(unit, start, end, label) of span annotations; the unit names the utterance."""
    out = set()
    for row in frame.itertuples(index=False):
        unit = (row.corpus, row.dialog_id, None if _missing(row.round) else int(row.round),
                None if _missing(row.turn) else int(row.turn),
                None if _missing(getattr(row, "utterance", None)) else int(row.utterance))
        out.add((unit, int(row.start), int(row.end), row.label))
    return out


def span_referents(frame: pd.DataFrame) -> dict:
    """(unit, start, end, label) as in ``spans_of`` -> the set of referents linked to that span."""
    out: dict = {}
    for row in frame.itertuples(index=False):
        unit = (row.corpus, row.dialog_id, None if _missing(row.round) else int(row.round),
                None if _missing(row.turn) else int(row.turn),
                None if _missing(getattr(row, "utterance", None)) else int(row.utterance))
        out.setdefault((unit, int(row.start), int(row.end), row.label), set()).update(row.referents)
    return out


def matched_referent_agreement(result: SpanAgreement, first_refs: dict, second_refs: dict) -> dict:
    """``referent_agreement`` over the span pairs a ``span_agreement`` matched."""
    return referent_agreement({i: first_refs.get(x, set()) for i, (x, _) in enumerate(result.pairs)},
                              {i: second_refs.get(y, set()) for i, (_, y) in enumerate(result.pairs)})


def referents_of(frame: pd.DataFrame) -> dict:
    """Item -> referent set of linking annotations; the item is (corpus, dialog, round, turn, utterance, label,
    start, end), so a span's referents are compared with the same span's."""
    out: dict = {}
    for row in frame.itertuples(index=False):
        key = tuple(None if _missing(v) else (int(v) if isinstance(v, (int, np.integer)) else v) for v in
                    (row.corpus, row.dialog_id, row.round, row.turn, getattr(row, "utterance", None), row.label,
                     row.start, row.end))
        out.setdefault(key, set()).update(row.referents)
    return out
