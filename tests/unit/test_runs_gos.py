"""Game Of Sorts runs: set scores by hand, empty gold apart, unmatched rows, and the demo runs against an
independent straightforward implementation."""
from __future__ import annotations

import json

import pytest

from corpora.gos.data.scoring import figures, set_scores
from data_access.common import SourceError
from data_access.corpora import load_path
from data_access.runs import load_run, summarize
from data_access.runs.demo import demo_runs


def test_set_scores_by_hand():
    assert set_scores({"a", "b"}, {"a", "b"}) == (True, 1.0, 1.0, 1.0)
    # one right, one wrong, one missed: P = 1/2, R = 1/2, F1 = 1/2
    assert set_scores({"a", "x"}, {"a", "b"}) == (False, 0.5, 0.5, 0.5)
    # nothing named: P = 0 by definition, R = 0, F1 = 0
    assert set_scores(set(), {"a"}) == (False, 0.0, 0.0, 0.0)
    # a superset: P = 1/3, R = 1, F1 = 2 * (1/3) / (4/3) = 1/2
    exact, precision, recall, f1 = set_scores({"a", "b", "c"}, {"a"})
    assert (exact, recall) == (False, 1.0) and precision == pytest.approx(1 / 3) and f1 == pytest.approx(0.5)


@pytest.fixture
def corpus(tmp_path):
    return load_path("gos", None, cache_root=tmp_path)


def test_a_hand_made_run_over_three_demo_messages(corpus, tmp_path):
    messages = corpus.frames["messages"]
    with_gold = messages[messages["image_ids"].map(len) == 1].iloc[:2]
    without = messages[messages["image_ids"].map(len) == 0].iloc[:1]
    first, second, empty = (r for _, r in list(with_gold.iterrows()) + list(without.iterrows()))

    def key(r):
        return {"interaction_id": r["interaction_id"], "round_number": int(r["round"]),
                "message_number": int(r["message_number"])}
    gold = list(first["image_ids"])[0]
    lines = [{**key(first), "image_ids": [gold]},                      # exact
             {**key(second), "image_ids": [gold, "somewhere_else"]},   # wrong (unless same gold), P 0 R 0
             {**key(empty), "image_ids": [None]},                       # empty gold, nothing named
             {**key(empty), "round_number": 9, "image_ids": []},         # unmatched
             {"interaction_id": "nope", "round_number": 1, "message_number": 1, "image_ids": []},
             {**key(first), "image_ids": "a"}]                            # malformed
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    loaded = load_run(corpus, path, cache_root=tmp_path)
    scored = loaded.frames["messages"]
    assert len(scored) == 3
    second_gold = list(second["image_ids"])[0]
    expected_second = set_scores({gold, "somewhere_else"}, {second_gold})
    summary = summarize(loaded)
    assert summary["scored_messages"] == 2 and summary["unmatched"] == 2
    assert summary["exact_match"] == pytest.approx((1 + expected_second[0]) / 2)
    assert summary["precision"] == pytest.approx((1 + expected_second[1]) / 2)
    assert summary["recall"] == pytest.approx((1 + expected_second[2]) / 2)
    assert loaded.unmatched["reason"].tolist()[1] == "unknown interaction"
    assert loaded.unmatched["reason"].tolist()[0].startswith("the interaction has no round 9")
    assert [s.record for s in loaded.skipped] == ["run.jsonl:6"]
    assert figures(scored)["names_image_when_gold_empty"] == 0.0
    assert set(summary) == {"run", "scored_messages", "unmatched", "exact_match", "precision", "recall", "f1", "skipped", "skipped_total"}


def test_demo_runs_agree_with_an_independent_implementation(corpus, tmp_path):
    messages = corpus.frames["messages"]
    gold = {(i, int(r), int(m)): {x for x in ids if x} for i, r, m, ids in zip(
        messages["interaction_id"], messages["round"], messages["message_number"], messages["image_ids"])}
    for _name, file in demo_runs("gos", tmp_path).items():
        lines = [json.loads(line) for line in file.read_text().splitlines()]
        exact, precision, recall, f1, named, empty = [], [], [], [], [], 0
        for line in lines:
            g = gold[(line["interaction_id"], line["round_number"], line["message_number"])]
            p = {x for x in line["image_ids"] if x}
            if not g:
                empty += 1
                named.append(bool(p))
                continue
            hit = len(p & g)
            exact.append(p == g)
            pr = hit / len(p) if p else 0.0
            rc = hit / len(g)
            precision.append(pr)
            recall.append(rc)
            f1.append(0.0 if pr + rc == 0 else 2 * pr * rc / (pr + rc))
        loaded = load_run(corpus, file, cache_root=tmp_path)
        summary = summarize(loaded)
        assert summary["scored_messages"] == len(exact) > 50
        assert summary["exact_match"] == pytest.approx(sum(exact) / len(exact))
        assert summary["precision"] == pytest.approx(sum(precision) / len(precision))
        assert summary["recall"] == pytest.approx(sum(recall) / len(recall))
        assert summary["f1"] == pytest.approx(sum(f1) / len(f1))
        assert figures(loaded.frames["messages"])["names_image_when_gold_empty"] == pytest.approx(sum(named) / empty)


def test_a_codraw_run_given_as_game_of_sorts_is_one_error(corpus, tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"dialog_id": "a", "round": 1, "scene": "0,"}\n')
    with pytest.raises(SourceError, match="looks like a run of CoDraw, not of A Game Of Sorts"):
        load_run(corpus, path, cache_root=tmp_path)
