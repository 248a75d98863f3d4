"""The Slices page exports the current slice: its dialog table (with the slice features) as CSV and Parquet, its
transcripts as LaTeX; the table is exactly the slice's dialogs (checked against pandas)."""
from __future__ import annotations

from data_access.corpora import demo_path, load_path

from .conftest import open_page


def test_the_slices_page_offers_the_slices_exports():
    at = open_page("slices", corpus="codraw", slice="split = train and n_rounds >= 8")
    labels = [b.proto.label for b in at.get("download_button")]
    dialogs = load_path("codraw", demo_path("codraw")).dialogs
    n = int(((dialogs["split"] == "train") & (dialogs["n_rounds"] >= 8)).sum())
    assert f"⬇ its {n:,} dialogs as CSV" in labels and f"⬇ its {n:,} dialogs as Parquet" in labels
    assert any(label.startswith("⬇ Its transcripts as LaTeX") for label in labels)


def test_the_slice_table_is_the_slices_dialogs_with_their_features():
    def app():
        import streamlit as st

        from ui.shell.corpus_edge import resolve
        from ui.slices.current import evaluate
        from ui.slices.exports import slice_table

        codraw = resolve("codraw")
        table = slice_table(codraw, evaluate(codraw, "split = train and peek_gain < 0"))
        st.session_state["ids"] = table["dialog_id"].tolist()
        st.session_state["has_gain"] = "peek_gain" in table.columns

    from .conftest import run_function

    at = run_function(app)
    loaded = load_path("codraw", demo_path("codraw"))
    from corpora.codraw.data.figures import peek_table

    gains = peek_table(loaded.dialogs)
    negative = set(gains.loc[gains["gain"] < 0, "dialog_id"])
    train = loaded.dialogs[loaded.dialogs["split"] == "train"]
    assert at.session_state["ids"] == [d for d in train["dialog_id"] if d in negative]
    assert at.session_state["has_gain"]
