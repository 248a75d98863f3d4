"""The two statistics the word lists share: Dunning's log-likelihood G² of a 2×2 table and its p-value.

G² = 2 Σ O ln(O / E) over the cells of a contingency table, E = row total × column total / N, with
0 · ln 0 = 0; under independence G² follows a chi-square distribution with 1 degree of freedom, whose survival
function is ``erfc(sqrt(x / 2))`` (no SciPy needed). Vectorised over numpy arrays of counts."""
from __future__ import annotations

import math

import numpy as np


def _term(observed: np.ndarray, expected: np.ndarray) -> np.ndarray:
    observed = np.asarray(observed, dtype=float)
    expected = np.asarray(expected, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = observed * np.log(observed / expected)
    return np.where(observed > 0, value, 0.0)


def g2_table(o11, o12, o21, o22) -> np.ndarray:
    """G² of the 2×2 tables [[o11, o12], [o21, o22]] (arrays of equal shape)."""
    o11, o12, o21, o22 = (np.asarray(x, dtype=float) for x in (o11, o12, o21, o22))
    n = o11 + o12 + o21 + o22
    r1, r2, c1, c2 = o11 + o12, o21 + o22, o11 + o21, o12 + o22
    with np.errstate(divide="ignore", invalid="ignore"):
        total = (_term(o11, r1 * c1 / n) + _term(o12, r1 * c2 / n) + _term(o21, r2 * c1 / n) + _term(o22, r2 * c2 / n))
    return np.maximum(2.0 * np.nan_to_num(total), 0.0)


def chi2_1df_p(g2) -> np.ndarray:
    """P(X ≥ g2) for X ~ chi-square with 1 degree of freedom (0.0 once it underflows: see ``p_text``)."""
    values = np.atleast_1d(np.asarray(g2, dtype=float))
    return np.array([math.erfc(math.sqrt(max(v, 0.0) / 2.0)) for v in values.ravel()]).reshape(values.shape)


P_FLOOR = 1e-300  # below it a double holds few or no digits of p (erfc underflows to 0 from G² ≈ 1,490)


def p_text(p: float, g2: float, digits: int = 2) -> str:
    """``p`` to ``digits`` significant digits; below ``P_FLOOR``, where it is 0 or nearly so in floating point,
    the bound it is under, ``< 1e-435`` (erfc(x) < exp(-x²) / (x √π), x = √(G²/2)), never "0"."""
    if p >= P_FLOOR or g2 <= 0:
        return format(float(p), f".{digits}g")
    x = math.sqrt(g2 / 2.0)
    log10_bound = (-x * x - math.log(x * math.sqrt(math.pi))) / math.log(10.0)
    return f"< 1e{math.ceil(log10_bound)}"


def with_p_text(frame, column: str = "p", digits: int = 2):
    """``frame`` with its ``p`` column as ``p_text`` (for tables a reader sees; needs the ``g2`` column)."""
    if column not in frame or "g2" not in frame:
        return frame
    return frame.assign(**{column: [p_text(p, g2, digits) for p, g2 in zip(frame[column], frame["g2"])]})
