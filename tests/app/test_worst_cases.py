"""Worst cases first: the Runs page ranks each demo corpus's demo run worst first with a link that steps through
the cases in the Replay, and the Replay opened with ``cases=``/``case=`` walks them, each at its worst step."""
from __future__ import annotations

import re
from urllib.parse import parse_qsl

import pytest
from streamlit.testing.v1 import AppTest

from data_access.runs.worst_cases import decode_cases

from . import conftest

VIEW = "Worst cases first"  # the Runs page's view (tab) that ranks them


def open_page(page: str, **params) -> AppTest:
    return conftest.open_page(page, timeout=180, **params)


def _cases_table(at: AppTest):
    return next(d.value for d in at.dataframe if {"rank", "unit", "turn", "open"} <= set(d.value.columns))


def _step_link(at: AppTest) -> dict[str, str]:
    link = next(p for p in at.get("page_link") if p.proto.label == "Step through these in the Replay")
    assert link.proto.page == "replay"
    return dict(parse_qsl(link.proto.query_string))


def _case_line(at: AppTest) -> str:
    """The stepper's line as read (markdown escapes removed)."""
    return re.sub(r"\\(.)", r"\1", next(m.value for m in at.markdown if m.value.startswith("**Case ")))


@pytest.mark.parametrize("corpus", ["codraw", "gos", "minecraft"])
def test_the_worst_cases_open_in_the_replay_and_next_case_moves_to_the_second_at_its_worst_step(corpus):
    runs = open_page("pages/runs.py", corpus=corpus, view=VIEW)
    table = _cases_table(runs)
    assert len(table) >= 2 and table["rank"].tolist() == list(range(1, len(table) + 1))
    assert table["value"].is_monotonic_increasing  # own score: lowest first
    assert table["open"].str.contains("&run=baseline").all()
    params = _step_link(runs)
    assert decode_cases(params["cases"]) == table["unit"].tolist()[:100] and params["case"] == "1"
    assert (params["dialog"], params["turn"], params["run"]) == (table["unit"].iloc[0].split("|")[0].split("#")[0],
                                                                 str(table["turn"].iloc[0]), "baseline")
    in_rounds = "round" in table.columns
    if in_rounds:
        assert params["round"] == str(table["round"].iloc[0])

    replay = open_page("pages/replay.py", **params)
    assert _case_line(replay).startswith(f"**Case 1 of {len(table)}**") and table["unit"].iloc[0] in _case_line(replay)
    assert replay.button(key="item_flow_previous").disabled
    replay.button(key="item_flow_next").click().run()
    assert not replay.exception, [e.value for e in replay.exception]
    second = table.iloc[1]
    assert replay.query_params["case"] == "2" and replay.query_params["turn"] == str(second["turn"])
    assert replay.query_params["dialog"] == second["unit"].split("|")[0].split("#")[0]
    if in_rounds:
        assert replay.query_params["round"] == str(second["round"])
    assert _case_line(replay).startswith(f"**Case 2 of {len(table)}**") and second["unit"] in _case_line(replay)
    link = conftest.state_link(replay)  # the replay itself shows the second case's step
    assert f"turn={second['turn']}" in link and "run=baseline" in link
    replay.button(key="item_flow_previous").click().run()
    assert replay.query_params["case"] == "1" and replay.query_params["turn"] == str(table["turn"].iloc[0])


def test_against_the_humans_the_largest_shortfall_comes_first_and_the_replay_says_the_gap():
    runs = open_page("pages/runs.py", corpus="codraw", view=VIEW)
    runs.selectbox(key="worst_versus_codraw").select("humans").run()
    assert not runs.exception
    table = _cases_table(runs)
    assert table["gap"].is_monotonic_increasing and (table["gap"] - (table["value"] - table["other"])).abs().max() < 1e-9
    assert table["gap"].iloc[0] < 0  # the baseline draws worse than the human Drawers somewhere
    params = _step_link(runs)
    assert params["vs"] == "humans"
    replay = open_page("pages/replay.py", **params)
    assert f"gap {table['gap'].iloc[0]:+.3f} against humans" in _case_line(replay)


def test_a_case_list_without_a_known_run_or_with_an_unknown_case_says_so():
    runs = open_page("pages/runs.py", corpus="codraw", view=VIEW)
    params = _step_link(runs)
    alone = open_page("pages/replay.py", **{**params, "run": "no-such-run"})
    assert any("choose the run the cases were ranked for" in c.value for c in alone.caption)
    odd = open_page("pages/replay.py", **{**params, "cases": "no-such-dialog," + params["cases"], "case": "1"})
    assert "is not among baseline's units" in _case_line(odd)
    odd.button(key="item_flow_next").click().run()
    assert not odd.exception and odd.query_params["case"] == "2"
