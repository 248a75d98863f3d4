"""A slice's transcripts as one LaTeX document (issue 37): a section per dialog (a Game Of Sorts round each), every
table alone beside it, bounded in dialogs; the document compiles with pdflatex and holds each dialog's lines."""
from __future__ import annotations

import io
import zipfile

import pytest

from data_access.corpora import demo_path, load_path
from data_access.exports.latex import MAX_SLICE_TRANSCRIPTS, slice_transcripts_zip

from .latex_tools import compile_pdf, pdf_text, squash


def test_a_slices_transcripts_compile_into_one_document(tmp_path):
    loaded = load_path("codraw", demo_path("codraw"))
    ids = loaded.dialogs["dialog_id"].tolist()[:3]
    archive = zipfile.ZipFile(io.BytesIO(slice_transcripts_zip(loaded, ids, "CoDraw · split = train · 3 dialogs",
                                                               {ids[0]: (2,)})))
    assert sorted(archive.namelist()) == sorted(["slice.tex", *[f"tables/codraw-{d}.tex" for d in ids]])
    document = archive.read("slice.tex").decode()
    assert all(f"\\input{{tables/codraw-{d}}}" in document for d in ids)
    archive.extractall(tmp_path)
    text = squash(pdf_text(compile_pdf(tmp_path / "slice.tex")))
    first = loaded.utterances[loaded.utterances["dialog_id"] == ids[2]]["text"].iloc[0]
    assert squash(first)[:20] in text.replace("’", "'") and "split=train" in text


def test_a_game_of_sorts_slice_has_a_transcript_per_round():
    loaded = load_path("gos", demo_path("gos"))
    dialog = loaded.dialogs["dialog_id"].iloc[0]
    names = zipfile.ZipFile(io.BytesIO(slice_transcripts_zip(loaded, [dialog], "one"))).namelist()
    assert [n for n in names if n.startswith("tables/")] == [f"tables/gos-{dialog}-r{r}.tex" for r in (1, 2, 3, 4)]


def test_too_many_dialogs_are_refused():
    loaded = load_path("codraw", demo_path("codraw"))
    with pytest.raises(ValueError, match="at most"):
        slice_transcripts_zip(loaded, [f"d{i}" for i in range(MAX_SLICE_TRANSCRIPTS + 1)], "many")
