"""Issue 39's rough edges of a first walk, at the page level: each test failed on the code before the fix."""
from __future__ import annotations

import re

import pytest
from streamlit import config

from data_access.coding import codebook as cb
from data_access.corpora import load_path
from data_access.layers.load import demo_layer_path, load_layer
from data_access.store import CodingStore

from . import conftest


@pytest.fixture
def icr_dialog(isolated_environment):
    """A demo CoDraw dialog of the demo CR layer with its layer labels per round (``{round: "CR" | "not CR"}``)."""
    cache = isolated_environment / "cache"
    layer = load_layer("codraw-icr", load_path("codraw", None, cache_root=cache), demo_layer_path("codraw-icr", cache),
                       True).annotations
    per_dialog = layer.groupby("dialog_id")
    dialog = max(per_dialog.groups, key=lambda d: (per_dialog.get_group(d)["is_cr"].any(), len(per_dialog.get_group(d))))
    rows = per_dialog.get_group(dialog)
    return dialog, dict(zip(rows["turn"].astype(int), rows["label"]))


def test_a_coder_who_labels_the_layers_not_cr_rounds_no_cr_agrees_with_it_overall(icr_dialog):
    """Before: the layer's "not CR" rounds counted as "none", so every "no-CR" of the coder was a disagreement and
    the overall row (57.1%, κ 0.276 in the issue) contradicted the CR row (85.7%, κ 0.696)."""
    dialog, labels = icr_dialog
    assert len(labels) >= 3 and "not CR" in labels.values()
    store = CodingStore()
    book = store.save_codebook(cb.Codebook("cr", (cb.Label("CR", scope="turn"), cb.Label("no-CR", scope="turn"))))
    flipped = next(turn for turn, label in labels.items() if label == "not CR")
    for turn, label in labels.items():
        mine = "CR" if (label == "CR") != (turn == flipped) else "no-CR"
        store.add_annotation("codraw", dialog, codebook=book, label=mine, coder="ann", turn=turn)
    at = conftest.open_page("pages/agreement.py", timeout=180, coder="ann")
    at.selectbox(key="agreement_layer").select("codraw-icr").run()
    assert not at.exception
    table = at.dataframe[0].value.set_index("label")
    expected = f"{100 * (len(labels) - 1) / len(labels):.1f}%"
    assert table.loc["(overall)", "units"] == len(labels)
    assert table.loc["(overall)", "% agreement"] == table.loc["CR", "% agreement"] == expected
    assert table.loc["(overall)", "Cohen's κ (95% CI)"].split()[0] == table.loc["CR", "Cohen's κ (95% CI)"].split()[0]
    assert any("each unit's whole set of labels is one value" in c.value for c in at.caption)
    assert at.selectbox(key="agreement_map_negative").value == "no-CR"  # guessed from the codebook's names


def _address_page():
    import streamlit as st

    from ui.shell.url_state import app_address

    st.markdown(f"address: {app_address()}")


@pytest.mark.parametrize("prefix", ["", "dashboard"])
def test_the_notes_downloads_take_the_address_the_browser_reached_the_server_at(prefix):
    """The Notes page puts ``app_address()`` before each link of its CSV / JSON Lines downloads."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_address_page, default_timeout=60)
    at.context = {"url": f"https://lab.example:8443/{prefix + '/' if prefix else ''}notes"}
    config.set_option("server.baseUrlPath", prefix)
    try:
        at.run()
    finally:
        config.set_option("server.baseUrlPath", "")
    assert not at.exception, [e.value for e in at.exception]
    assert at.markdown[0].value == "address: https://lab.example:8443" + (f"/{prefix}" if prefix else "")


def test_the_notes_table_shows_a_codraw_notes_round_not_none():
    """Before: a CoDraw note (stored with its round as the step) showed round "None", as did a Minecraft note."""
    from data_access.sources import notes_db_path
    from data_access.store import NotesStore

    store = NotesStore(notes_db_path())
    store.add_note("codraw", "train_00001", "on round 3", turn=3)
    store.add_note("minecraft", "B1-A1-C1-1", "on step 2", turn=2)
    store.add_note("gos", "g1", "on round 2, step 5", round=2, turn=5)
    store.add_note("gos", "g1", "on the dialog")
    table = conftest.open_page("notes").data_editor[0].value
    shown = {text: (str(r), str(t)) for text, r, t in zip(table["text"], table["round"], table["turn"])}
    assert shown == {"on round 3": ("3", "3"), "on step 2": ("—", "2"), "on round 2, step 5": ("2", "5"),
                     "on the dialog": ("—", "—")}


def test_the_agreement_disagreements_show_a_codraw_round_not_none():
    store = CodingStore()
    book = store.save_codebook(cb.Codebook("cr", (cb.Label("CR", scope="turn"),)))
    store.add_annotation("codraw", "d1", codebook=book, label="CR", coder="ann", turn=2)
    store.add_annotation("codraw", "d1", codebook=book, label="CR", coder="bo", turn=3)
    at = conftest.open_page("pages/agreement.py", coder="ann")
    table = at.dataframe[1].value
    assert sorted(zip(table["round"], table["turn"])) == [("2", "2"), ("3", "3")]
    assert table["replay"].str.contains("turn=2").any()  # the links are made from the stored places


def test_the_minecraft_run_view_says_how_its_net_action_counts_and_marked_blocks_differ():
    """Before: "TP/FP/FN 0/2/12" beside a picture captioned "solid correct (7)", with no word on the two measures."""
    from data_access.corpora import load_path

    sample = load_path("minecraft", None).frames["bap_samples"].iloc[0]
    at = conftest.open_page("pages/replay.py", timeout=180, corpus="minecraft", run="noisy",
                            dialog=str(sample["game"]), turn=str(int(sample["turn"])))
    counts = next(m for m in at.metric if m.label == "TP / FP / FN")
    assert "Net actions" in (counts.help or "")
    caption = next(c.value for c in at.caption if c.value.startswith(f"BAP sample {int(sample['sample_id'])}"))
    correct = re.search(r"solid correct \((\d+)\)", caption).group(1)
    assert f"TP / FP / FN ({counts.value})" in caption
    assert f"the {correct} correct including blocks that stood before the sample" in caption
