"""AppTests of the pages the published layers touch, on the demo corpora with their generated demo layers
(and a broken layer folder for the Data page)."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from data_access.corpora import load_path
from data_access.layers.load import demo_layer_path, load_layer
from tests.app.transcript_lines import player_captions

from . import conftest


def open_page(page: str, **params) -> AppTest:
    """The shared helper with more time: the demo layers are built and linked on first use."""
    return conftest.open_page(page, timeout=180, **params)


@pytest.fixture
def demo_icr(isolated_environment):
    cache = isolated_environment / "cache"
    return load_layer("codraw-icr", load_path("codraw", None, cache_root=cache), demo_layer_path("codraw-icr", cache), True)


@pytest.fixture
def demo_mentions(isolated_environment):
    cache = isolated_environment / "cache"
    return load_layer("gos-mentions", load_path("gos", None, cache_root=cache), demo_layer_path("gos-mentions", cache), True)


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_data_page_reports_the_alignment_figures(demo_icr, demo_mentions):
    at = open_page("pages/data.py")
    assert "Published annotation layers" in [h.value for h in at.header]
    shown = metrics(at)
    figures = demo_icr.figures
    assert shown["Aligned uniquely"] == f"{figures['aligned_unique']:,}"
    assert shown["Aligned ambiguously"] == f"{figures['aligned_ambiguous']:,}"
    assert shown["Not aligned"] == "1"
    assert shown["Mentions"] == f"{demo_mentions.figures['mentions']:,}"
    assert shown["Spans out of range"] == "0"
    assert [b.label for b in at.get("download_button") if "published layout" in b.label] == [
        "⬇ Linked mentions in the published layout (JSON Lines)", "⬇ Rows in the published layout (TSV)"]



def test_after_a_restart_the_data_page_shows_the_layers_without_linking_them(demo_icr, demo_mentions, monkeypatch):
    import streamlit as st

    import data_access.layers.load

    first = open_page("pages/data.py")
    st.cache_data.clear()  # as a restarted server: nothing in memory, the Parquet cache and its summaries kept
    st.cache_resource.clear()
    conftest.clear_module_caches()
    monkeypatch.setattr(data_access.layers.load, "load_layer", lambda *args: pytest.fail("a layer was linked"))
    again = open_page("pages/data.py")
    assert metrics(again) == metrics(first) and metrics(again)["Mentions"] == f"{demo_mentions.figures['mentions']:,}"
    assert [b.label for b in again.get("download_button")] == [b.label for b in first.get("download_button")]
    assert [c.value for c in again.caption] == [c.value for c in first.caption]

def test_data_page_names_a_broken_or_missing_layer_file(tmp_path, monkeypatch):
    (tmp_path / "icr-codraw-data.tsv").write_text("not\tthe header\n", encoding="utf-8")
    monkeypatch.setenv("DIALOGUE_LAYERS_DIR", str(tmp_path))
    at = open_page("pages/data.py")
    errors = [e.value.replace("\\", "") for e in at.error]  # the page escapes markdown
    assert any(str(tmp_path / "gos-mentions.jsonl") in e and "does not exist" in e for e in errors), errors
    assert any(str(tmp_path / "icr-codraw-data.tsv") in e and "not the published header" in e for e in errors), errors
    assert len(conftest.markdown_table(at)) == 3  # the corpora themselves still load: a row of counts each


def test_browse_filters_codraw_dialogs_with_a_cr(demo_icr):
    crs = demo_icr.annotations.groupby("dialog_id")["is_cr"].sum()
    with_cr = set(crs[crs > 0].index)
    at = open_page("pages/browse.py", corpus="codraw", cr="1")
    table = at.dataframe[0].value
    assert set(table["dialog_id"]) == with_cr and (table["CRs"] > 0).all()
    assert any(t.label == "Only dialogs with a CR" and t.value for t in at.toggle)
    everything = open_page("pages/browse.py", corpus="codraw").dataframe[0].value
    assert len(everything) > len(table) and "CRs" in everything.columns


def test_search_lists_matching_mentions(demo_mentions):
    at = open_page("pages/search.py", q="pug")
    assert "Mentions (A Game Of Sorts, published layer)" in [s.value for s in at.subheader]
    mentions = at.dataframe[-1].value
    expected = demo_mentions.annotations["text"].str.lower().str.contains("pug").sum()
    assert len(mentions) == expected > 0
    assert mentions["mention"].str.contains("pug").all()
    assert mentions["link"].str.startswith("/replay?corpus=gos&dialog=").all()


def test_gos_outcomes_count_mentions_per_round_and_criterion(demo_mentions):
    at = open_page("pages/gos_outcomes.py", view="Mentions")
    assert "Mentions (published layer)" in [h.value for h in at.header]
    per_board = at.dataframe[-1].value
    assert per_board["mentions"].sum() == len(demo_mentions.annotations)
    assert set(per_board.columns) >= {"board_id", "criterion", "plays", "messages", "mentions", "mentions_per_message"}


def test_codraw_scores_chart_score_by_cr():
    at = open_page("pages/codraw_scores.py", view="Clarification requests")
    assert "Score and clarification requests (published layer)" in [h.value for h in at.header]
    assert any("bootstrap" in c.value and "0–5" in c.value for c in at.caption)


def test_gos_replay_highlights_the_mentions_of_the_message(demo_mentions):
    row = demo_mentions.annotations.iloc[0]
    at = open_page("pages/replay.py", corpus="gos", dialog=row["dialog_id"], round=str(row["round"]), turn=str(row["turn"]))
    html = [h.proto.body for h in at.get("html") if "vgd-transcript" not in h.proto.body]  # not the transcript
    assert len(html) == 1 and "<mark" in html[0]
    assert f">{row['text']}<sup" in html[0]  # the mention's text, marked and numbered
    assert len(player_captions(at)) == 2  # both boards, in the step player


def test_codraw_replay_marks_a_cr_round(demo_icr):
    cr = demo_icr.annotations[demo_icr.annotations["is_cr"]].iloc[0]
    at = open_page("pages/replay.py", corpus="codraw", dialog=cr["dialog_id"], turn=str(cr["turn"]))
    assert any("Clarification request" in w.value for w in at.warning)
    assert any(c.value.startswith("Rounds with a CR: ") and str(cr["turn"]) in c.value for c in at.caption)


def test_replay_and_browse_reruns_copy_no_layer_out_of_the_cache(demo_mentions, monkeypatch):
    from data_access.layers.load import LoadedLayer

    row = demo_mentions.annotations.iloc[0]
    at = open_page("pages/replay.py", corpus="gos", dialog=row["dialog_id"], round=str(row["round"]), turn=str(row["turn"]))
    copies: list[str] = []

    def counting_setstate(self, state):
        copies.append(state.get("layer", "?") if isinstance(state, dict) else "?")
        self.__dict__.update(state)

    monkeypatch.setattr(LoadedLayer, "__setstate__", counting_setstate, raising=False)
    next(t for t in at.toggle if t.label == "Show the whole round").set_value(True).run()
    assert not at.exception
    assert copies == [] and len([h for h in at.get("html") if "vgd-transcript" not in h.proto.body]) == 1  # the mentions are still shown, from small cached results
    browse = open_page("pages/browse.py", corpus="codraw")
    copies.clear()
    next(t for t in browse.toggle if t.label == "Only dialogs with a CR").set_value(True).run()
    assert not browse.exception
    assert copies == []
