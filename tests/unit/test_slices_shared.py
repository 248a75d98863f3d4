"""Slice counts on the full corpora (../shared/data) against independent pandas computations over the loaded
frames and the published layers: a dozen slices over CoDraw, A Game Of Sorts and Minecraft, the issue's own
question among them ("has a CR and the score drops after the peek": 221 dialogs)."""
from __future__ import annotations

import pandas as pd
import pytest

from data_access.corpora import load_path
from data_access.layers.load import load_layer
from data_access.slices import SliceError, evaluate, format_value, slice_data

pytestmark = pytest.mark.shared


@pytest.fixture(scope="module")
def real(real_cache):
    from tests.conftest import SHARED_DATA

    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    codraw = load_path("codraw", SHARED_DATA / "codraw" / "CoDraw_1_0.json.gz", cache_root=real_cache)
    gos = load_path("gos", SHARED_DATA / "game-of-sorts", cache_root=real_cache)
    minecraft = load_path("minecraft", SHARED_DATA / "minecraft", cache_root=real_cache)
    icr = load_layer("codraw-icr", codraw, SHARED_DATA / "annotations" / "icr-codraw-data.tsv")
    mentions = load_layer("gos-mentions", gos, SHARED_DATA / "annotations" / "gos-mentions.jsonl")
    return {
        "codraw": (codraw, slice_data(codraw, layers={"codraw-icr": icr}), icr),
        "gos": (gos, slice_data(gos, layers={"gos-mentions": mentions}), mentions),
        "minecraft": (minecraft, slice_data(minecraft), None),
    }


def _codraw_expected(loaded, icr) -> dict[str, int]:
    d = loaded.dialogs
    gain = (d["final_score"] - d["score_before_peek"]).where(d["peek_round"].notna())
    rows = icr.annotations
    cr_ids = set(rows.loc[rows["is_cr"], "dialog_id"].astype(str))
    in_layer = set(rows["dialog_id"].astype(str))
    has_cr = d["dialog_id"].astype(str).isin(cr_ids)
    u = loaded.utterances
    drawer_q = set(u.loc[(u["role"] == "Drawer") & u["text"].str.contains("?", regex=False), "dialog_id"].astype(str))
    return {
        "crs > 0 and peek_gain < 0": int((has_cr & (gain < 0)).sum()),
        "not crs > 0": int((~has_cr).sum()),
        "crs = 0": int((d["dialog_id"].astype(str).isin(in_layer - cr_ids)).sum()),
        "split in (train, val) and n_rounds >= 5": int((d["split"].isin(["train", "val"]) & (d["n_rounds"] >= 5)).sum()),
        "final_score > 4 or peek_gain >= 1": int(((d["final_score"] > 4) | (gain >= 1)).sum()),
        'split = test and not (peek_round <= 3)': int(((d["split"] == "test") & ~(d["peek_round"] <= 3).fillna(False)).sum()),
        're("\\?", Drawer) and peek_gain < 0': int((d["dialog_id"].astype(str).isin(drawer_q) & (gain < 0)).sum()),
    }


def test_a_dozen_slice_counts_equal_pandas(real):
    loaded, data, icr = real["codraw"]
    expected = _codraw_expected(loaded, icr)
    assert expected["crs > 0 and peek_gain < 0"] == 221  # the issue's count
    gos, gos_data, mentions = real["gos"]
    g = gos.dialogs
    mentioned = set(mentions.annotations["dialog_id"].astype(str))
    expected_gos = {
        "mismatches > 0": int((g["mismatches"] > 0).sum()),
        "mentions > 0 and n_messages >= 100": int((g["dialog_id"].isin(mentioned) & (g["n_messages"] >= 100)).sum()),
        "players = " + format_value(str(g["players"].iloc[0][0])): int(g["players"].map(lambda p: g["players"].iloc[0][0] in list(p)).sum()),
    }
    minecraft, mc_data, _ = real["minecraft"]
    m = minecraft.dialogs
    expected_mc = {
        "outcome_match": int(m["outcome_match"].sum()),
        "not outcome_match and outcome_f1 >= 0.5": int((~m["outcome_match"] & (m["outcome_f1"] >= 0.5)).sum()),
        "duration_s > 600 or placements > 100": int(((m["duration_s"] > 600) | (m["placements"] > 100)).sum()),
    }
    counted = 0
    for table, frame in ((expected, data), (expected_gos, gos_data), (expected_mc, mc_data)):
        for text, count in table.items():
            assert int(evaluate(text, frame).sum()) == count, text
            counted += 1
    assert counted >= 12


def test_a_slice_of_one_corpus_on_another_says_what_is_missing(real):
    _, gos_data, _ = real["gos"]
    with pytest.raises(SliceError, match="A Game Of Sorts has no feature “crs”"):
        evaluate("crs > 0 and peek_gain < 0", gos_data)
    assert isinstance(real["codraw"][1].dialogs, pd.DataFrame)


def test_the_issues_slice_as_its_analysis_page_draws_it(real):
    """The CoDraw page on "crs > 0 and peek_gain < 0": its peek chart drawn on the cut corpus holds exactly the 221
    dialogs, and the slice against the rest is the pandas difference of the final-score means."""
    from corpora.codraw.data.figures import peek_gain_chart
    from data_access.slices import dialog_ids
    from data_access.slices.subcorpus import contrast_of, restrict

    loaded, data, _ = real["codraw"]
    ids = dialog_ids("crs > 0 and peek_gain < 0", data)
    chart = peek_gain_chart(restrict(loaded, ids))
    assert sorted(chart.data["dialog_id"]) == sorted(ids) and len(ids) == 221
    assert (chart.data["gain"] < 0).all()
    found = contrast_of(loaded.dialogs, "final_score", ids)
    d = loaded.dialogs
    inside = d["dialog_id"].isin(ids)
    assert found.n_slice == int(d.loc[inside, "final_score"].notna().sum())
    assert found.difference == pytest.approx(d.loc[inside, "final_score"].mean() - d.loc[~inside, "final_score"].mean())
    assert found.low < found.difference < found.high


def test_the_three_moment_questions_against_pandas(real):
    """Issue 46's three questions through step slices and the contrast, each against pandas over the frames."""
    from data_access.slices import step_keys
    from data_access.slices.measures import contrast_slices

    # (a) among peeked dialogs, the peek gain of those with a CR against those without (annotated, no CR)
    loaded, data, icr = real["codraw"]
    d = loaded.dialogs.set_index("dialog_id")
    gain = (d["final_score"] - d["score_before_peek"]).where(d["peek_round"].notna()).dropna()
    rows = icr.annotations
    with_cr = set(rows.loc[rows["is_cr"], "dialog_id"].astype(str))
    without = set(rows["dialog_id"].astype(str)) - with_cr
    a, b = gain[gain.index.isin(with_cr)], gain[gain.index.isin(without)]
    result = contrast_slices(data, "peek_gain", "peek_gain is not null and crs > 0", "peek_gain is not null and crs = 0")
    assert (result.n_a, result.n_b) == (len(a), len(b)) and result.n_a == 3294  # the issue's 3,294, zeros kept
    assert result.diff == pytest.approx(a.mean() - b.mean()) and result.ci_low < result.diff < result.ci_high
    # the CR of a round (a step feature from the layer): the rounds the layer marks (its turn: a CoDraw round)
    cr_rounds = set(zip(rows.loc[rows["is_cr"], "dialog_id"].astype(str), rows.loc[rows["is_cr"], "turn"].astype(int)))
    kept = step_keys("steps(cr)", data)
    assert set(zip(kept["dialog_id"], kept["turn"].astype(int))) == cr_rounds and len(cr_rounds) > 1000
    # (b) the most disputed board: its mismatched locks summed over its plays, each play a round of an interaction
    gos, gos_data, _ = real["gos"]
    locks = gos.frames["lock_events"]
    per_board = locks[locks["mismatch"]].groupby("board_id").size()
    moments = step_keys("steps(mismatch)", gos_data)
    boards = gos_data.steps.frame.set_index(["dialog_id", "round", "turn"])["board"]
    found = boards.reindex(pd.MultiIndex.from_frame(moments)).value_counts()
    assert found.idxmax() == per_board.idxmax() and found.max() == per_board.max()
    # (c) Architect messages whose Builder actions after them include a removal
    minecraft, mc_data, _ = real["minecraft"]
    u, actions = minecraft.utterances, minecraft.frames["actions"]
    last = minecraft.dialogs.set_index("dialog_id")["n_steps"]
    removed = actions[actions["kind"] == "removal"]
    turns = set(zip(removed["game"], removed["turn"].clip(upper=removed["game"].map(last))))
    expected = {(g, t) for g, t, r in zip(u["dialog_id"], u["turn"], u["role"]) if r == "Architect" and (g, t) in turns}
    kept = step_keys("steps(role = Architect and removals > 0)", mc_data)
    assert set(zip(kept["dialog_id"], kept["turn"])) == expected and expected
