"""Both CoDraw metrics: the readable reference functions, the vectorised ones, and stored scores."""
from __future__ import annotations

import random

import numpy as np
import pytest

from corpora.codraw.data.metrics import final_score, original_score, score_pairs
from corpora.codraw.data.scenes import Clipart, dense_scenes, identity_of, parse_scene, parse_scene_strings

# A real-format target and drawing (written for this test) and the score the game would have stored
# for them: [score, weights, terms, weighted] with terms 1..6 not multiplied by IoU.
TARGET = "3,s_3s.png,0,3,0,469,31,2,0,hb0_10s.png,1,10,2,100,250,1,0,t_4s.png,2,4,7,279,115,1,1"
DRAWING = ("5,s_3s.png,0,3,0,448.7,43,2,0,hb0_10s.png,1,10,2,159,281,1,1,hb0_11s.png,2,11,2,-10000,-10000,0,0,"
           "t_4s.png,3,4,7,343.5,167,0,1,a_1s.png,4,1,4,20,300,1,0,")


def clip(type_id, object_id, x, y, z=0, flip=0):
    return Clipart(identity_of(type_id, object_id), "x.png", type_id, object_id, float(x), float(y), z, flip)


def test_original_metric_by_hand():
    score = original_score(parse_scene(DRAWING), parse_scene(TARGET))
    # common: sun, boy, ball (3 of a union of 4); IoU 0.75
    assert (score.common, score.union) == (3, 4)
    assert score.terms[0] == pytest.approx(0.75)
    assert score.terms[1] == 0.0  # objects' flips agree
    assert score.terms[2] == 1.0  # the boy is flipped
    assert score.terms[3] == pytest.approx(1 / 3)  # the ball's depth differs
    # x orders: sun 469>ball 279>boy 100 vs drawn 448>343>159: same order; y: sun 31<ball 115<boy 250 vs
    # 43<167<281: same. No reversed pairs.
    assert score.terms[5] == score.terms[6] == 0.0
    distances = [np.hypot((469 - 448) / 500, (31 - 43) / 400), np.hypot(59 / 500, 31 / 400), np.hypot(64 / 500, 52 / 400)]
    assert score.terms[4] == pytest.approx(sum(distances) / 3)  # 448.7 and 343.5 truncated first
    assert score.score == pytest.approx(0.75 * (5 - 1 - 1 / 3 - sum(distances) / 3))


def test_final_metric_by_hand():
    score = final_score(parse_scene(DRAWING), parse_scene(TARGET))
    union = 4
    assert score.terms[0] == pytest.approx(3 / union)
    assert score.terms[1] == pytest.approx(1 / union)  # the boy's flip (all cliparts count here)
    assert score.terms[2] == score.terms[3] == 0.0  # same expression and pose
    assert score.terms[4] == pytest.approx(1 / union)
    assert score.terms[6] == score.terms[7] == 0.0
    assert score.score <= 5


def test_final_metric_counts_ties_and_is_five_for_a_perfect_copy():
    target = [clip(0, 3, 100, 50), clip(7, 4, 100, 300)]  # same x: a tie counts as reversed
    assert final_score(target, target).terms[6] == pytest.approx(1 / (2 * 1))
    distinct = [clip(0, 3, 100, 50), clip(7, 4, 300, 300)]
    assert final_score(distinct, distinct).score == pytest.approx(5.0)
    assert original_score(distinct, distinct).score == pytest.approx(5.0)


def test_truncation_versus_rounding():
    target = [clip(0, 3, 100, 50), clip(7, 4, 101, 300)]
    drawing = [clip(0, 3, 100.7, 50), clip(7, 4, 100.2, 300)]
    # truncated: 100 vs 100 -> product 0, not reversed; rounded: 101 vs 100 -> reversed
    assert original_score(drawing, target).terms[5] == 0.0
    assert final_score(drawing, target).terms[6] > 0


def random_scene(rng: random.Random, palette: bool) -> str:
    identities = rng.sample(range(8), 3) + rng.sample(range(10), 2)
    records = []
    items = [(0, i) for i in identities[:3]] + [(1, i) for i in identities[3:]] + [(2, rng.randrange(35)), (7, rng.randrange(15))]
    for index, (type_id, object_id) in enumerate(items):
        if palette and rng.random() < 0.3:
            x, y = -10000, -10000
        else:
            x, y = rng.choice([rng.randrange(500), rng.randrange(500) + 0.5]), rng.randrange(-3, 400)
        records += [f"n{index}.png", str(index), str(object_id), str(type_id), str(x), str(y), str(rng.randrange(3)), str(rng.randrange(2))]
    return ",".join([str(len(items))] + records) + ("," if rng.random() < 0.5 else "")


def test_vectorised_metrics_agree_with_the_reference():
    rng = random.Random(7)
    scenes = [random_scene(rng, palette=True) for _ in range(300)]
    parsed = parse_scene_strings(scenes, chunk=64)
    assert not parsed.problems
    dense = dense_scenes(parsed.cliparts, len(scenes))
    drawing = np.array([rng.randrange(len(scenes)) for _ in range(500)] + [-1])
    target = np.array([rng.randrange(len(scenes)) for _ in range(500)] + [0])
    original, final = score_pairs(dense, drawing, target, chunk=37)
    for k in range(500):
        d, t = parse_scene(scenes[drawing[k]]), parse_scene(scenes[target[k]])
        assert original[k] == pytest.approx(original_score(d, t).score, rel=1e-12, abs=1e-12)
        assert final[k] == pytest.approx(final_score(d, t).score, rel=1e-12, abs=1e-12)
    assert np.isnan(original[-1]) and np.isnan(final[-1])


def test_vectorised_metric_reproduces_stored_scores():
    rng = random.Random(11)
    targets = [random_scene(rng, palette=False) for _ in range(20)]
    drawings = [random_scene(rng, palette=True) for _ in range(20)]
    stored = [original_score(parse_scene(d), parse_scene(t)).score for d, t in zip(drawings, targets)]
    parsed = parse_scene_strings(targets + drawings)
    dense = dense_scenes(parsed.cliparts, 40)
    original, _ = score_pairs(dense, np.arange(20, 40), np.arange(20))
    np.testing.assert_allclose(original, stored, rtol=1e-9)
    # and the hand-written fixture above
    parsed = parse_scene_strings([TARGET, DRAWING])
    original, _ = score_pairs(dense_scenes(parsed.cliparts, 2), np.array([1]), np.array([0]))
    assert original[0] == pytest.approx(original_score(parse_scene(DRAWING), parse_scene(TARGET)).score, rel=1e-12)
