"""The Data page: where each corpus came from, and every problem named by file and record, while the
corpora that load stay usable."""
import re
import shutil

import pandas as pd
import pytest

from data_access.corpora import demo_path
from tests.system import require_fonts_for

from .conftest import markdown_table, open_page


def test_a_broken_source_is_named_and_a_bad_record_is_listed_while_the_rest_loads(tmp_path, monkeypatch):
    truncated = tmp_path / "CoDraw_1_0.json"
    truncated.write_text('{"count": 2, "stat": {}, "data": {"train_00001": {"image_id": 1, "abs_t": "1,')
    gos = tmp_path / "gos"
    shutil.copytree(demo_path("gos", tmp_path / "demo"), gos)
    log = next(gos.glob("*log_interaction_all.jsonl"))
    lines = log.read_text(encoding="utf-8").splitlines()
    lines[4] = '{"interaction_id": "broken'
    log.write_text("\n".join(lines), encoding="utf-8")
    monkeypatch.setenv("CODRAW_DATA", str(truncated))
    monkeypatch.setenv("GAME_OF_SORTS_DATA", str(gos))

    at = open_page("data")
    errors = [re.sub(r"\\(.)", r"\1", e.value) for e in at.error]  # as shown: markdown escapes resolved
    assert any(str(truncated) in e and "could not be loaded" in e.lower() for e in errors), (errors, [m.value for m in at.markdown])
    assert any("record(s) could not be read" in w.value for w in at.warning)
    skipped = at.dataframe[0].value
    assert skipped["record"].str.contains(f"{log.name} line 5").any()
    counts = markdown_table(at)  # Game Of Sorts and Minecraft still show their counts
    assert list(counts["Corpus"]) == ["A Game Of Sorts", "Minecraft Collaborative Building"]
    assert (counts["dialogs"] > 0).all() and counts.loc[0, "skipped records"] >= 1


def test_demo_sources_are_labelled_as_such():
    at = open_page("data")
    assert sum("built-in demo corpus" in m.value for m in at.markdown) == 3
    assert not at.error


def test_after_a_restart_the_runs_figures_come_from_the_cache_without_loading_a_run(monkeypatch):
    import streamlit as st

    import data_access.runs

    from .conftest import clear_module_caches

    first = open_page("data")
    runs_table = next(d.value for d in first.dataframe if "unmatched" in d.value.columns)
    assert len(runs_table) >= 2  # the demo runs
    st.cache_data.clear()  # as a restarted server: nothing in memory, the Parquet cache and its summaries kept
    st.cache_resource.clear()
    clear_module_caches()
    monkeypatch.setattr(data_access.runs, "load_run", lambda *args, **kwargs: pytest.fail("a run was loaded"))
    again = open_page("data")
    table = next(d.value for d in again.dataframe if "unmatched" in d.value.columns)
    pd.testing.assert_frame_equal(table, runs_table)


def _gos_with(tmp_path, text: str):
    gos = tmp_path / "gos"
    shutil.copytree(demo_path("gos", tmp_path / "demo"), gos)
    log = next(gos.glob("*log_interaction_all.jsonl"))
    log.write_text(log.read_text(encoding="utf-8").replace('"hello :)"', f'"{text}"', 1), encoding="utf-8")
    return gos


def test_the_data_page_names_the_font_package_a_corpus_character_needs(tmp_path, monkeypatch):
    """A fresh machine without Debian's caption fonts: the page says which package draws the corpus's 中 and 😂
    (before, the GIF captions silently drew boxes)."""
    from data_access import fonts

    monkeypatch.setenv("GAME_OF_SORTS_DATA", str(_gos_with(tmp_path, "中 😂")))
    monkeypatch.setattr(fonts, "installed_font", lambda family: None)
    fonts._chain.cache_clear()
    try:
        at = open_page("data")
    finally:
        fonts._chain.cache_clear()
    notes = [w.value for w in at.warning if "caption" in w.value]
    command = re.search(r"apt-get install ([a-z -]+)", notes[0]) if len(notes) == 1 else None
    assert command and set(command.group(1).split()) == {"fonts-symbola", "fonts-noto-cjk"}, notes
    assert "中" in notes[0] and "😂" in notes[0]


def test_with_the_caption_fonts_installed_there_is_no_font_note(tmp_path, monkeypatch):
    require_fonts_for("中 😂")
    monkeypatch.setenv("GAME_OF_SORTS_DATA", str(_gos_with(tmp_path, "中 😂")))
    at = open_page("data")
    assert not [w.value for w in at.warning if "caption" in w.value]
