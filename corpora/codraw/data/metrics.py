"""The two CoDraw scene-similarity metrics, each written twice: as a short readable function on one
(drawing, target) pair, and vectorised with numpy over many pairs at once (what the loader uses).

* ``original``: the 7-term metric of the first arXiv version, which the game stored with every round.
  Positions are truncated toward zero first (the game's JavaScript used ``parseInt``); pairs are all
  ordered (i, j) of common cliparts including i = j. Reproduces every stored score.
* ``final``: the published paper's monotonic metric (max 5): positions rounded, distances capped at 1,
  people's expression and pose scored apart, unordered pairs i < j, everything normalised by the union.
"""
from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from corpora.codraw.data.scenes import CANVAS_HEIGHT, CANVAS_WIDTH, PEOPLE_TYPES, Clipart, DenseScenes

ORIGINAL_WEIGHTS = (5.0, -1.0, -1.0, -1.0, -1.0, -0.5, -0.5)
ORIGINAL_TERMS = ("IoU", "flip (objects)", "pose/expression/flip (people)", "depth", "distance",
                  "x order reversed", "y order reversed")
FINAL_WEIGHTS = (5.0, -1.0, -0.5, -0.5, -1.0, -1.0, -1.0, -1.0)
FINAL_TERMS = ("IoU", "flip", "expression", "pose", "depth", "distance (capped)", "x order", "y order")
PEOPLE_IDENTITIES = np.array([18, 19])  # the boy and the girl


@dataclass(frozen=True)
class ScoreBreakdown:
    """A score with its terms: score = sum(weighted), weighted[i] = weights[i] * terms[i] (times IoU for
    the original metric's terms 1..6, which the game stored un-multiplied)."""

    score: float
    names: tuple[str, ...]
    weights: tuple[float, ...]
    terms: tuple[float, ...]
    weighted: tuple[float, ...]
    common: int  # cliparts in both scenes
    union: int


def _matched(drawing: list[Clipart], target: list[Clipart]):
    drawn = {c.identity: c for c in drawing}
    wanted = {c.identity: c for c in target}
    common = [i for i in wanted if i in drawn]
    return [wanted[i] for i in common], [drawn[i] for i in common], len(wanted.keys() | drawn.keys())


def original_score(drawing: list[Clipart], target: list[Clipart]) -> ScoreBreakdown:
    """The stored 7-term metric of one drawing against its target."""
    wanted, drawn, union = _matched(drawing, target)
    iou = len(wanted) / union if union else 0.0
    num, den = [1.0] + [0.0] * 6, [1.0] + [0.0] * 6
    for t, d in zip(wanted, drawn):
        if t.type in PEOPLE_TYPES:
            num[2] += t.object != d.object or t.flip != d.flip
            den[2] += 1
        else:
            num[1] += t.flip != d.flip
            den[1] += 1
        num[3] += t.z != d.z
        num[4] += math.hypot((math.trunc(t.x) - math.trunc(d.x)) / CANVAS_WIDTH,
                             (math.trunc(t.y) - math.trunc(d.y)) / CANVAS_HEIGHT)
        den[3] += 1
        den[4] += 1
    for ti, di in zip(wanted, drawn):
        for tj, dj in zip(wanted, drawn):
            num[5] += (math.trunc(ti.x) - math.trunc(tj.x)) * (math.trunc(di.x) - math.trunc(dj.x)) < 0
            num[6] += (math.trunc(ti.y) - math.trunc(tj.y)) * (math.trunc(di.y) - math.trunc(dj.y)) < 0
            den[5] += 1
            den[6] += 1
    ratios = [n / max(d, 1) for n, d in zip(num, den)]
    terms = (iou,) + tuple(ratios[1:])
    weighted = tuple(w * r * iou for w, r in zip(ORIGINAL_WEIGHTS, ratios))
    return ScoreBreakdown(sum(weighted), ORIGINAL_TERMS, ORIGINAL_WEIGHTS, terms, weighted, len(wanted), union)


def final_score(drawing: list[Clipart], target: list[Clipart]) -> ScoreBreakdown:
    """The paper's final (monotonic) metric of one drawing against its target."""
    wanted, drawn, union = _matched(drawing, target)
    common = len(wanted)
    num = [float(common)] + [0.0] * 7
    for t, d in zip(wanted, drawn):
        num[1] += t.flip != d.flip
        if t.type in PEOPLE_TYPES:
            num[2] += t.object % 5 != d.object % 5
            num[3] += t.object // 5 != d.object // 5
        num[4] += t.z != d.z
        num[5] += min(1.0, math.hypot((round(t.x) - round(d.x)) / CANVAS_WIDTH,
                                      (round(t.y) - round(d.y)) / CANVAS_HEIGHT))
    for i in range(common):
        for j in range(i + 1, common):
            num[6] += (round(wanted[i].x) - round(wanted[j].x)) * (round(drawn[i].x) - round(drawn[j].x)) <= 0
            num[7] += (round(wanted[i].y) - round(wanted[j].y)) * (round(drawn[i].y) - round(drawn[j].y)) <= 0
    den = [union] * 6 + [union * (common - 1)] * 2
    terms = tuple(n / max(d, 1) for n, d in zip(num, den))
    weighted = tuple(w * t for w, t in zip(FINAL_WEIGHTS, terms))
    return ScoreBreakdown(sum(weighted), FINAL_TERMS, FINAL_WEIGHTS, terms, weighted, common, union)


# ----------------------------------------------------------------------------------------------------
# Vectorised over many (drawing, target) pairs

def _reversed_pairs(target: np.ndarray, drawn: np.ndarray, valid: np.ndarray, ties_count: bool, ordered: bool) -> np.ndarray:
    """Per row, the pairs of (compacted) common cliparts whose order along one axis differs between
    target and drawing: product of the two differences < 0 (or <= 0 when ``ties_count``)."""
    product = np.sign(target[:, :, None] - target[:, None, :]) * np.sign(drawn[:, :, None] - drawn[:, None, :])
    reversed_ = product <= 0 if ties_count else product < 0
    pair_ok = valid[:, :, None] & valid[:, None, :]
    if not ordered:
        pair_ok &= np.triu(np.ones(valid.shape[1], dtype=bool), k=1)
    return np.count_nonzero(reversed_ & pair_ok, axis=(1, 2))


def score_pairs(scenes: DenseScenes, drawing: np.ndarray, target: np.ndarray, chunk: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    """(original, final) scores of scene ``drawing[k]`` against scene ``target[k]`` for every k;
    NaN where either scene id is negative (no drawing / no target).

    Each distinct (drawing, target) pair is scored once (a Drawer who changes nothing repeats the
    previous round's scene), and pairs are processed in chunks of similar common-clipart counts so
    the pairwise order terms only span as many columns as the chunk needs."""
    drawing, target = np.asarray(drawing, dtype=np.int64), np.asarray(target, dtype=np.int64)
    original = np.full(len(drawing), np.nan)
    final = np.full(len(drawing), np.nan)
    rows = np.flatnonzero((drawing >= 0) & (target >= 0))
    if len(rows) == 0:
        return original, final
    n_scenes = len(scenes.present)
    keys, inverse = np.unique(drawing[rows] * n_scenes + target[rows], return_inverse=True)
    pair_drawing, pair_target = keys // n_scenes, keys % n_scenes
    n_common = np.count_nonzero(scenes.present[pair_drawing] & scenes.present[pair_target], axis=1)
    pair_original, pair_final = np.empty(len(keys)), np.empty(len(keys))
    by_size = np.argsort(n_common, kind="stable")

    def score(begin: int) -> None:
        part = by_size[begin:begin + chunk]
        pair_original[part], pair_final[part] = _score_chunk(scenes, pair_drawing[part], pair_target[part])

    # numpy releases the GIL in its kernels, so two chunks at a time keep both cores busy; one chunk (a run of a few
    # dialogs, a play) is scored in this thread: starting the pool's threads would cost more than it scores
    starts = range(0, len(keys), chunk)
    if len(starts) == 1:
        score(0)
    else:
        with ThreadPoolExecutor(max_workers=2) as pool:
            list(pool.map(score, starts))
    original[rows], final[rows] = pair_original[inverse], pair_final[inverse]
    return original, final


def _score_chunk(s: DenseScenes, d: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    in_d, in_t = s.present[d], s.present[t]
    common = in_d & in_t
    n_common = np.count_nonzero(common, axis=1)
    n_union = np.count_nonzero(in_d | in_t, axis=1)

    # Gather the common cliparts into the first K columns (K = the chunk's largest count); every
    # per-clipart and pairwise term below works on these few columns, ``valid`` marks the real ones.
    width = max(int(n_common.max(initial=0)), 1)
    columns = np.argsort(~common, axis=1, kind="stable")[:, :width]
    valid = np.arange(width)[None, :] < n_common[:, None]
    rows = np.arange(len(d))[:, None]

    def both(values):
        return values[d[:, None], columns], values[t[:, None], columns]

    x_d, x_t = both(s.x)
    y_d, y_t = both(s.y)
    z_d, z_t = both(s.z)
    flip_d, flip_t = both(s.flip)
    sub_d, sub_t = both(s.subtype)
    person = valid & np.isin(columns, PEOPLE_IDENTITIES)
    thing = valid & ~person
    flip_differs = flip_d != flip_t
    depth_differs = np.count_nonzero(valid & (z_d != z_t), axis=1)

    def positions(round_):
        return [np.where(valid, round_(v), 0).astype(np.int32) for v in (x_d, x_t, y_d, y_t)]

    with np.errstate(invalid="ignore"):
        # The original metric on truncated positions, all ordered pairs, ratios times IoU.
        tx_d, tx_t, ty_d, ty_t = positions(np.trunc)
        distance = np.where(valid, np.hypot((tx_t - tx_d) / CANVAS_WIDTH, (ty_t - ty_d) / CANVAS_HEIGHT), 0.0)
        n_things, n_people = np.count_nonzero(thing, axis=1), np.count_nonzero(person, axis=1)
        one = np.maximum(n_common, 1)
        squared = np.maximum(n_common ** 2, 1)
        ratios = np.stack([
            np.ones(len(d)),
            np.count_nonzero(flip_differs & thing, axis=1) / np.maximum(n_things, 1),
            np.count_nonzero(((sub_d != sub_t) | flip_differs) & person, axis=1) / np.maximum(n_people, 1),
            depth_differs / one,
            distance.sum(axis=1) / one,
            _reversed_pairs(tx_t, tx_d, valid, ties_count=False, ordered=True) / squared,
            _reversed_pairs(ty_t, ty_d, valid, ties_count=False, ordered=True) / squared,
        ], axis=1)
        iou = n_common / np.maximum(n_union, 1)
        original = iou * (ratios @ np.array(ORIGINAL_WEIGHTS))

        # The paper's final metric on rounded positions, unordered pairs, normalised by the union.
        rx_d, rx_t, ry_d, ry_t = positions(np.rint)
        capped = np.where(valid, np.minimum(1.0, np.hypot((rx_t - rx_d) / CANVAS_WIDTH, (ry_t - ry_d) / CANVAS_HEIGHT)), 0.0)
        union = np.maximum(n_union, 1)
        n_pairs = np.maximum(n_union * (n_common - 1), 1)
        sub_d, sub_t = sub_d.astype(np.int16), sub_t.astype(np.int16)
        terms = np.stack([
            n_common / union,
            np.count_nonzero(flip_differs & valid, axis=1) / union,
            np.count_nonzero((sub_d % 5 != sub_t % 5) & person, axis=1) / union,
            np.count_nonzero((sub_d // 5 != sub_t // 5) & person, axis=1) / union,
            depth_differs / union,
            capped.sum(axis=1) / union,
            _reversed_pairs(rx_t, rx_d, valid, ties_count=True, ordered=False) / n_pairs,
            _reversed_pairs(ry_t, ry_d, valid, ties_count=True, ordered=False) / n_pairs,
        ], axis=1)
        final = terms @ np.array(FINAL_WEIGHTS)
    del rows
    return original, final
