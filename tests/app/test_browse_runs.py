"""Browse by run and by code (issue 27): a demo run's columns with the right values, a range on a run column and
the label filter from a link (the count caption says how many dialogs are left), and a hostile run or label name
shown as text."""
from __future__ import annotations

import re
import shutil

import pytest

from data_access.coding import adjudication
from data_access.coding import codebook as cb
from data_access.corpora import demo_path, load_path
from data_access.runs import load_run
from data_access.runs.demo import demo_runs
from data_access.store import NO_DECISION, CodingStore
from ui.widgets import md_escape

from .conftest import open_page
from .test_hardening_markup import assert_inert

SCORE, GAP = "baseline · score", "baseline · gap"


def shown_counts(at) -> tuple[int, int]:
    caption = next(c.value for c in at.caption if re.match(r"[\d,]+ of [\d,]+ dialogs", c.value))
    shown, total = re.match(r"([\d,]+) of ([\d,]+) dialogs", caption).groups()
    return int(shown.replace(",", "")), int(total.replace(",", ""))


def independent_final_scores(corpus):
    """Per dialog (the demo baseline run of CoDraw): the score of its last round with a non-empty canvas, and the
    human Drawer's final score, straight from the scored rounds and the corpus's dialogs."""
    run = load_run(corpus, demo_runs("codraw")["baseline"])
    rounds = run.frames["rounds"]
    drawn = rounds[rounds["has_drawing"]].sort_values(["dialog_id", "round"])
    model = drawn.groupby("dialog_id")["score_final"].last()
    humans = corpus.dialogs.set_index("dialog_id")["final_score"]
    return model, humans


def test_a_demo_run_adds_its_score_and_gap_columns_with_the_right_values():
    at = open_page("browse", corpus="codraw")
    table = at.dataframe[0].value.set_index("dialog_id")
    assert {SCORE, GAP, "noisy · score", "noisy · gap"} <= set(table.columns)
    corpus = load_path("codraw", demo_path("codraw"))
    model, humans = independent_final_scores(corpus)
    dialog = model.index[3]
    assert table.loc[dialog, SCORE] == pytest.approx(model[dialog])
    assert table.loc[dialog, GAP] == pytest.approx(model[dialog] - humans[dialog])
    assert table[SCORE].notna().sum() == len(model)
    assert {f"browse_range_codraw_{SCORE}", f"browse_range_codraw_{GAP}"} <= {s.key for s in at.slider}


def test_a_corpus_without_a_human_figure_has_no_gap_column():
    table = open_page("browse", corpus="minecraft").dataframe[0].value
    assert SCORE in table.columns and GAP not in table.columns


def test_a_range_on_a_run_column_from_the_link_filters_the_rows():
    at = open_page("browse", corpus="codraw")
    everything = at.dataframe[0].value
    scores = everything[SCORE].dropna().sort_values()
    low = round(float(scores.iloc[len(scores) // 2]), 2)
    at = open_page("browse", corpus="codraw", **{SCORE: f"{low}.."})
    table = at.dataframe[0].value
    expected = int((everything[SCORE] >= low).sum())
    assert 0 < expected < len(everything)
    assert shown_counts(at) == (expected, len(everything)) == (len(table), len(everything))
    assert (table[SCORE] >= low).all()
    assert at.slider(key=f"browse_range_codraw_{SCORE}").value[0] == low
    assert at.query_params[SCORE] == f"{low:g}.."


@pytest.fixture
def coded():
    """CR coded by ann on two dialogs (twice on the first), by bo on one, and the gold on one."""
    store = CodingStore()
    book = store.save_codebook(cb.Codebook("clarification", (cb.Label("CR", scope="turn"),)))
    dialogs = load_path("codraw", demo_path("codraw")).dialogs["dialog_id"].tolist()
    first, second, third = dialogs[0], dialogs[5], dialogs[9]
    for dialog, turn, coder in ((first, 1, "ann"), (first, 2, "ann"), (second, 1, "ann"), (third, 1, "bo")):
        store.add_annotation("codraw", dialog, codebook=book, label="CR", coder=coder, turn=turn)
    adjudication.save_gold_labels(store, book, "turn", "codraw", third, None, 1, ["CR"], "judge", expected=NO_DECISION)
    return first, second, third


def test_the_label_filter_by_coder_from_the_link(coded):
    first, second, _ = coded
    at = open_page("browse", corpus="codraw", label="CR", coder="ann")
    table = at.dataframe[0].value
    assert shown_counts(at)[0] == 2
    assert dict(zip(table["dialog_id"], table["labels"])) == {first: 2, second: 1}
    assert at.selectbox(key="browse_label_codraw").value == "CR"
    assert at.selectbox(key="browse_coder_codraw").value == "ann"
    assert "How many annotations of the chosen label" in at.dataframe[0].proto.columns  # its help travels in the column configuration


def test_the_label_filter_by_the_gold_and_a_run_range_together(coded):
    _, _, third = coded
    at = open_page("browse", corpus="codraw", label="CR", coder="gold")
    assert at.dataframe[0].value["dialog_id"].tolist() == [third]
    score = float(at.dataframe[0].value[SCORE].iloc[0])
    above = open_page("browse", corpus="codraw", label="CR", coder="gold", **{SCORE: f"{score + 0.01:.2f}.."})
    assert shown_counts(above)[0] == 0
    at.selectbox(key="browse_coder_codraw").set_value("").run()  # any coder: ann's two dialogs and bo's
    assert shown_counts(at)[0] == 3 and "coder" not in at.query_params


def test_the_label_filter_shows_names_as_they_are_written():
    """A selectbox's options are plain text in the browser: an escaped name would show its backslashes."""
    store = CodingStore()
    book = store.save_codebook(cb.Codebook("clarification v1.2", (cb.Label("CR_turn", scope="turn"),)))
    dialog = load_path("codraw", demo_path("codraw")).dialogs["dialog_id"].iloc[0]
    store.add_annotation("codraw", dialog, codebook=book, label="CR_turn", coder="ann.smith", turn=1)
    at = open_page("browse", corpus="codraw", label="CR_turn")
    assert "CR_turn" in at.selectbox(key="browse_label_codraw").options
    assert "ann.smith" in at.selectbox(key="browse_coder_codraw").options
    assert "clarification v1.2" in at.selectbox(key="browse_book_codraw").options


def test_a_link_naming_an_unknown_label_says_so_and_filters_nothing(coded):
    at = open_page("browse", corpus="codraw", label="nope")
    assert any("names no label" in w.value for w in at.warning)
    assert shown_counts(at)[0] == shown_counts(at)[1]
    assert "label" not in at.query_params
    at = open_page("browse", corpus="gos", label="CR")  # no labels on this corpus at all
    assert any("names no label" in w.value for w in at.warning) and "label" not in at.query_params


RUN_NAME = "![t](x.png) **bold** :red[red]"
LABEL_NAME = "![l](http://evil.example/l.png) **bold**"


def test_a_hostile_run_name_and_label_on_browse_are_text(tmp_path, monkeypatch):
    runs = tmp_path / "runs" / "codraw"
    runs.mkdir(parents=True)
    baseline = demo_runs("codraw")["baseline"]
    shutil.copy(baseline, runs / f"{RUN_NAME}{''.join(baseline.suffixes)}")
    monkeypatch.setenv("DIALOGUE_RUNS_DIR", str(tmp_path / "runs"))
    store = CodingStore()
    book = store.save_codebook(cb.Codebook("book **b**", (cb.Label(LABEL_NAME, scope="turn"),)))
    dialog = load_path("codraw", demo_path("codraw")).dialogs["dialog_id"].iloc[0]
    store.add_annotation("codraw", dialog, codebook=book, label=LABEL_NAME, coder="**coder**", turn=1)
    at = open_page("browse", corpus="codraw", label=LABEL_NAME)
    values = assert_inert(at)
    assert f"{RUN_NAME} · score" in at.dataframe[0].value.columns  # the grid's header: plain text
    assert any(md_escape(f"{RUN_NAME} · score") == v for v in values)  # its slider's label
    assert shown_counts(at)[0] == 1
