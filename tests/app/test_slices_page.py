"""The Slices page (issue 37) on the demo corpora: the URL's slice in words with its count (equal to pandas),
a bad slice said and nothing filtered, saving a slice and seeing it listed with its counts per corpus, the SQL
console's result made into a slice, a hostile query refused in one line, and a result cut to its byte budget or a
query stopped at its time limit said so (issue 45)."""
from __future__ import annotations

import re

from corpora.codraw.data.figures import peek_table
from data_access.corpora import load_path
from tests.app.conftest import open_page


def _demo_count(tmp_path) -> int:
    loaded = load_path("codraw", None, cache_root=tmp_path)
    gains = peek_table(loaded.dialogs)
    long = set(loaded.dialogs.loc[loaded.dialogs["n_rounds"] >= 5, "dialog_id"])
    return int(gains["dialog_id"].isin(long)[gains["gain"] >= 0].sum())


def test_the_slice_is_said_with_its_count(tmp_path):
    at = open_page("slices", slice="n_rounds>=5 and peek_gain >= 0")
    expected = _demo_count(tmp_path)
    assert expected > 0
    assert [m.value for m in at.info] == [f"**Slice**: CoDraw · rounds ≥ 5 · peek gain ≥ 0 · {expected} dialogs"]
    assert not at.warning


def test_a_bad_slice_is_said_and_nothing_breaks():
    at = open_page("slices", slice="crs and (")
    assert any("is not one" in w.value and "at character 10" in w.value for w in at.warning)
    at = open_page("slices", slice="no_such_feature > 3")
    assert any("has no feature “no\\_such\\_feature”" in w.value for w in at.warning)


def test_saving_a_slice_lists_it_with_its_counts():
    at = open_page("slices", slice="n_rounds >= 5")
    at.text_input(key=next(t.key for t in at.text_input if t.label == "Name")).input("long dialogs")
    at.checkbox[0].check()
    next(b for b in at.button if b.label == "Save").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    grid = at.dataframe[0].value
    assert list(grid["name"]) == ["long dialogs"] and bool(grid["shared"].iloc[0])
    assert grid["CoDraw"].iloc[0] > 0 and "link" in grid.columns
    at.text_input(key=next(t.key for t in at.text_input if t.label == "Name")).input("long dialogs")
    next(b for b in at.button if b.label == "Save").click().run()  # the same name again: refused, said once
    said = [e.value for e in at.error]
    assert said and said[0].startswith("Not saved: you already have a slice named") and said[0].count("Not saved") == 1


def test_a_sql_result_becomes_the_slice():
    at = open_page("slices")
    at.text_area(key="slices_sql_codraw").set_value(
        "SELECT dialog_id FROM features WHERE n_rounds >= 5 ORDER BY dialog_id")
    at.button(key="slices_sql_run").click().run()
    assert not at.exception and not at.error
    at.button(key="slices_sql_slice").click().run()
    text = at.query_params["slice"]
    text = text[0] if isinstance(text, list) else text
    # issue 46: the slice is the query itself, of any size, evaluated again wherever it is used
    assert text == "sql:SELECT dialog_id FROM features WHERE n_rounds >= 5 ORDER BY dialog_id"
    dialogs = load_path("codraw", None).dialogs
    info = [m.value for m in at.info]
    assert info and "dialogs of the query" in info[0] and f"{int((dialogs['n_rounds'] >= 5).sum()):,} dialogs" in info[0]


def test_a_hostile_query_is_refused_in_one_line():
    at = open_page("slices")
    at.text_area(key="slices_sql_codraw").set_value("SELECT * FROM read_csv('/etc/passwd')")
    at.button(key="slices_sql_run").click().run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "disabled by configuration" in errors[0] and "\n" not in errors[0]


def test_the_console_reads_the_store_codes_runs_and_layers():
    from data_access.coding import codebook as cb
    from data_access.corpora import demo_path
    from data_access.store import CodingStore

    dialog = load_path("codraw", demo_path("codraw")).dialogs["dialog_id"].iloc[0]
    store = CodingStore()
    book = store.save_codebook(cb.Codebook("clarification", (cb.Label("CR", scope="turn"),)))
    store.add_annotation("codraw", dialog, codebook=book, label="CR", coder="ann", turn=2)
    at = open_page("slices")
    at.text_area(key="slices_sql_codraw").set_value(
        "SELECT (SELECT count(*) FROM codes WHERE label = 'CR') AS codes, (SELECT count(DISTINCT run) FROM runs) AS runs, "
        "(SELECT count(*) FROM layer_codraw_icr) > 0 AS layer")
    at.button(key="slices_sql_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.dataframe[-1].value.iloc[0].tolist() == [1, 2, True]


def test_a_wide_result_is_shown_cut_and_says_so():
    at = open_page("slices")
    at.text_area(key="slices_sql_codraw").set_value("SELECT i, repeat('x', 100000) AS x FROM range(3000) t(i)")
    at.button(key="slices_sql_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    warnings = [re.sub(r"\\(.)", r"\1", w.value) for w in at.warning]  # as shown (markdown escapes removed)
    assert len(warnings) == 1 and warnings[0].startswith("The result was cut: only the first ")
    assert "8 MB" in warnings[0] and "4,000 characters were cut" in warnings[0]
    grid = at.dataframe[-1].value
    assert 0 < len(grid) < 3000 and grid["x"].iloc[0].endswith("... [cut: 100,000 characters]")
    assert any(c.value.startswith("3,000 rows (") and "a page)" in c.value for c in at.caption)


def test_a_query_past_its_time_limit_is_stopped_and_says_so(monkeypatch):
    import ui.slices.console

    monkeypatch.setattr(ui.slices.console, "SQL_TIMEOUT_S", 1.0)
    at = open_page("slices")
    at.text_area(key="slices_sql_codraw").set_value(
        "SELECT max(levenshtein(repeat('a',8000)||i::VARCHAR, repeat('b',8000))) FROM range(2000) t(i)")
    at.button(key="slices_sql_run").click().run()
    assert not at.exception
    assert [e.value for e in at.error] == ["The query ran past the time limit of 1 s and was stopped\\."]  # escaped


def test_the_result_is_shown_whole_page_by_page():
    """Issue 46: the grid showed about ten rows of the first 10,000; the whole result is now paged, each page the
    query again (LIMIT / OFFSET), in a tall grid."""
    at = open_page("slices")
    at.text_area(key="slices_sql_codraw").set_value("SELECT range AS n FROM range(25000) ORDER BY n")
    at.button(key="slices_sql_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any(c.value.startswith("25,000 rows (10,000 a page)") for c in at.caption)
    page = next(n for n in at.number_input if n.key == "slices_sql_page")
    assert page.max == 3
    page.set_value(3).run()
    grid = at.dataframe[-1].value
    assert not at.exception and grid["n"].tolist() == list(range(20000, 25000))


def test_a_row_is_read_in_full():
    from tests.app.conftest import run_function

    def script():
        import pandas as pd

        from ui.slices.sql_result import full_row

        full_row(pd.DataFrame({"text": ["a" * 5000], "n": [1]}), 0)

    at = run_function(script)
    assert [c.value for c in at.code] == ["a" * 5000, "1"]


def test_the_console_reads_the_saved_slices_this_session_may_read():
    from data_access.store import Store

    rounds = load_path("codraw", None).frames["rounds"]
    store = Store()
    high = store.slices.save("high rounds", "sql:SELECT dialog_id, round FROM rounds WHERE score_final > 3",
                             corpus="codraw")
    long = store.slices.save("long dialogs", "n_rounds >= 8", corpus="codraw")
    at = open_page("slices")
    at.text_area(key="slices_sql_codraw").set_value(
        "SELECT s.id, s.level, count(*) AS members FROM saved_slice_members m JOIN saved_slices s ON s.id = m.slice_id "
        "GROUP BY s.id, s.level ORDER BY s.id")
    at.button(key="slices_sql_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    dialogs = load_path("codraw", None).dialogs
    assert at.dataframe[-1].value.values.tolist() == [
        [high, "query", int((rounds["score_final"] > 3).sum())], [long, "dialog", int((dialogs["n_rounds"] >= 8).sum())]]
