"""The CoDraw CR layer: reading the TSV (no quoting; hostile lines skipped and listed), aligning rows to
(dialog, round) by normalised text (unique / ambiguous / not aligned), the figures and the round trip."""
from __future__ import annotations

import pandas as pd
import pytest

from corpora.codraw.data import icr_layer as codraw_icr
from data_access.common import SourceError
from data_access.corpora import load_path
from data_access.layers import ANNOTATION_COLUMNS
from data_access.layers.load import demo_layer_path, load_layer

HEADER = "previous utterance by the teller\tdrawer's utterance\tnext utterance by the teller\tis CR?\timpossible to know?"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return load_path("codraw", None, cache_root=tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="module")
def rounds(corpus):
    return codraw_icr.corpus_rounds(corpus)


@pytest.fixture
def tiny():
    """Three dialogs in the form of ``corpus_rounds``: the Drawer says "ok" a lot; one question is unique."""
    rows = [
        ("train_00001", "train", 1, "hi", "hello"),
        ("train_00001", "train", 2, "a big tree on the left", "ok"),
        ("train_00001", "train", 3, "a boy under it, he's happy", "Is the boy's hat red?"),
        ("train_00001", "train", 4, "yes, red 1/2 inch", "ok"),
        ("val_00002", "val", 1, "a sun top right", "ok"),
        ("val_00002", "val", 2, "that's it", "ok"),
        ("test_00003", "test", 1, "hi", "hello"),
        ("test_00003", "test", 2, "a dog", "ok"),
    ]
    return pd.DataFrame(rows, columns=["dialog_id", "split", "round", "msg_t", "msg_d"])


def test_normalise_ignores_case_and_punctuation_tokenisation():
    assert codraw_icr.normalise(["It's a Tree, 1/2 inch!", "it 's a tree , 1 2 inch !", "  ", None]).to_pylist() == \
        ["it s a tree 1 2 inch", "it s a tree 1 2 inch", "", ""]


def test_rows_align_unique_ambiguous_or_not_and_hostile_lines_are_listed(tmp_path, tiny):
    lines = [
        HEADER,
        "a boy under it , he 's happy\tis the boy 's hat red ?\tyes , red 1 2 inch\t1\t",  # unique, with context
        "---\tok\t---\t0\t",  # ambiguous: five rounds end with "ok"
        "---\tis the boy 's hat red ?\t---\t0\t1",  # unique from the Drawer message alone
        "the \"big\" tree\twhere is the \"big\" tree ?\tleft\t1\t",  # quotes kept as text; matches nothing
        "too\tfew\tfields",
        "a\tb\tc\tyes\t",
        "a\tb\tc\t1\tmaybe",
        "",
    ]
    path = tmp_path / "icr-codraw-data.tsv"
    path.write_text("\n".join(lines), encoding="utf-8")
    layer = codraw_icr.read_layer(path)
    assert layer.rows[3].drawer == 'where is the "big" tree ?'
    aligned = codraw_icr.align(layer, tiny)
    figures = codraw_icr.summary(aligned)
    assert list(figures) == ["rows", "aligned_unique", "aligned_ambiguous", "not_aligned", "crs", "crs_aligned", "splits",
                             "skipped", "skipped_total"]
    assert {k: v for k, v in figures.items() if k not in ("skipped", "skipped_total", "splits")} == {
        "rows": 4, "aligned_unique": 2, "aligned_ambiguous": 1, "not_aligned": 1, "crs": 2, "crs_aligned": 1}
    assert figures["splits"] == {"train": {"dialogs_with_cr": 1, "rounds_with_cr": 1},
                                 "val": {"dialogs_with_cr": 0, "rounds_with_cr": 0},
                                 "test": {"dialogs_with_cr": 0, "rounds_with_cr": 0}}
    assert [s["record"] for s in figures["skipped"]] == [f"icr-codraw-data.tsv line {n}" for n in (6, 7, 8)]
    assert "3 tab-separated fields" in figures["skipped"][0]["reason"]

    table = aligned.rows
    assert table["alignment"].tolist() == ["unique", "ambiguous", "unique", "not aligned"]
    assert table["candidates"].tolist() == [1, 5, 1, 0]
    frame = aligned.annotations
    assert list(frame.columns[:len(ANNOTATION_COLUMNS)]) == ANNOTATION_COLUMNS
    assert frame[["dialog_id", "turn", "label", "impossible", "text"]].values.tolist() == [
        ["train_00001", 3, "CR", False, "Is the boy's hat red?"], ["train_00001", 3, "not CR", True, "Is the boy's hat red?"]]
    assert frame["round"].isna().all() and frame["start"].isna().all()  # CoDraw: the round is the replay step


def test_context_disambiguates_a_common_drawer_message(tmp_path, tiny):
    path = tmp_path / "icr-codraw-data.tsv"
    path.write_text(HEADER + "\n" + "a sun top right\tok\t---\t0\t\n" + "---\tok\tthat 's it\t0\t\n"
                    + "that 's it\tok\t\t0\t\n" + "hi\thello\t---\t0\t\n")
    aligned = codraw_icr.align(codraw_icr.read_layer(path), tiny)
    assert aligned.rows[["alignment", "dialog_id", "round"]].astype(object).where(aligned.rows[["alignment", "dialog_id", "round"]].notna(), None).values.tolist() == [
        ["unique", "val_00002", 1], ["unique", "val_00002", 1], ["unique", "val_00002", 2], ["ambiguous", None, None]]


def test_a_file_without_the_published_header_is_not_this_layer(tmp_path):
    path = tmp_path / "icr.tsv"
    path.write_text("a\tb\tc\n")
    with pytest.raises(SourceError, match="icr.tsv: line 1 is not the published header"):
        codraw_icr.read_layer(path)
    (tmp_path / "empty.tsv").write_text("")
    with pytest.raises(SourceError, match="empty.tsv: is empty"):
        codraw_icr.read_layer(tmp_path / "empty.tsv")


def test_demo_layer_has_all_three_outcomes(tmp_path, corpus):
    path = demo_layer_path("codraw-icr", tmp_path)
    assert path.read_bytes() == demo_layer_path("codraw-icr", tmp_path / "other").read_bytes()
    figures = load_layer("codraw-icr", corpus, path, is_demo=True).figures
    assert figures["aligned_unique"] > 50 and figures["aligned_ambiguous"] > 0 and figures["not_aligned"] == 1
    assert figures["crs_aligned"] > 5 and figures["skipped"] == []


def test_read_export_read_gives_the_same(tmp_path, rounds):
    path = demo_layer_path("codraw-icr", tmp_path)
    aligned = codraw_icr.align(codraw_icr.read_layer(path), rounds)
    # The rows as read, written back in the published layout: the same file.
    assert codraw_icr.to_tsv(aligned.rows) == path.read_text(encoding="utf-8")
    # Coded CRs in the common form, exported with the corpus's context: they align back to the same rounds.
    exported = tmp_path / "export.tsv"
    exported.write_text(codraw_icr.annotations_to_tsv(aligned.annotations, rounds), encoding="utf-8")
    again = codraw_icr.align(codraw_icr.read_layer(exported), rounds)
    columns = ["dialog_id", "turn", "label", "impossible", "text"]
    assert again.figures["not_aligned"] == 0
    unique_again = again.annotations[columns].sort_values(["dialog_id", "turn"]).reset_index(drop=True)
    unique_before = aligned.annotations[columns].sort_values(["dialog_id", "turn"]).reset_index(drop=True)
    assert unique_again.equals(unique_before)


def test_punctuation_breaks_a_tie_between_rounds_equal_once_normalised(tmp_path):
    """Issue 26: rows that differ from several rounds only in punctuation were all ambiguous; the round whose
    punctuation also agrees (case and spacing ignored) is the row's when it is the only one."""
    rounds = pd.DataFrame([
        ("train_00001", "train", 1, "a tree", "ok, thank you!"),
        ("train_00002", "train", 1, "a tree", "ok thank you"),
        ("train_00003", "train", 1, "a tree", "ok thank you"),
        ("train_00004", "train", 1, "a sun", "is it big?"),
        ("train_00005", "train", 1, "a sun", "is it big?"),
    ], columns=["dialog_id", "split", "round", "msg_t", "msg_d"])
    path = tmp_path / "icr-codraw-data.tsv"
    path.write_text("\n".join([HEADER, "a tree\tok , thank you !\t---\t0\t", "a tree\tok thank you\t---\t0\t",
                               "a sun\tis it big ?\t---\t1\t"]) + "\n", encoding="utf-8")
    aligned = codraw_icr.align(codraw_icr.read_layer(path), rounds)
    assert aligned.rows["alignment"].tolist() == ["unique", "ambiguous", "ambiguous"]
    assert aligned.rows["dialog_id"].tolist()[0] == "train_00001"
    assert codraw_icr.exact_form(["Ok , Thank  you !", None]).to_pylist() == ["ok,thankyou!", ""]


@pytest.mark.shared
def test_the_real_layer_aligns_at_least_12212_rows_uniquely(shared_data, real_cache):
    loaded = load_path("codraw", shared_data / "codraw" / "CoDraw_1_0.json.gz", cache_root=real_cache)
    aligned = codraw_icr.load(loaded, shared_data / "annotations" / "icr-codraw-data.tsv")
    assert aligned.figures["aligned_unique"] >= 12_212
    assert aligned.figures["aligned_unique"] + aligned.figures["aligned_ambiguous"] == 13_727
