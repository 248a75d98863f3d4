"""LaTeX exports compiled with pdflatex: hostile transcripts (every special, accents, CJK, emoji, a line
starting with \\input) typeset to their text; booktabs tables with paper-style intervals."""
from __future__ import annotations

import io
import zipfile

import pandas as pd
import pytest

from data_access.corpora import load_configured
from data_access.exports.latex import (
    TranscriptLine,
    booktabs_table,
    dialog_transcript_zip,
    format_interval,
    latex_escape,
    standalone_document,
    transcript_zip,
)

from .latex_tools import compile_pdf, pdf_text, squash

SPECIALS = r"& % $ # _ { } ~ ^ \ < > | "
HOSTILE = [
    TranscriptLine(1, "Teller_1 & co", "All specials: " + SPECIALS + "end"),
    TranscriptLine(2, "Drawer", "\\input{/etc/passwd} \\def\\x{boom} \\x"),
    TranscriptLine(3, "Zoë", "Café naïve façade, Ångström, “smart” quotes – and — dashes… 50% off €5 ßøł"),
    TranscriptLine(4, "李", "中文 text and an emoji 😀 here"),
    TranscriptLine(5, "Teller", "two\nlines\twith tab"),
]


def test_escape_covers_every_special_and_marks_what_cannot_be_typeset():
    escaped = latex_escape(SPECIALS)
    for raw in "&%$#_{}":
        assert f"\\{raw}" in escaped
    assert r"\textbackslash{}" in escaped and r"\textasciitilde{}" in escaped and r"\textasciicircum{}" in escaped
    assert latex_escape("é") == r"\'{e}" and latex_escape("“a”") == "``a''"
    assert latex_escape("😀") == r"\unicodemark{1F600}"
    assert latex_escape("\\input{x}").startswith(r"\textbackslash{}input\{x\}")


def test_hostile_transcript_compiles_and_reads_back(tmp_path):
    data = transcript_zip("hostile", "A hostile transcript: 100% & more", HOSTILE)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        archive.extractall(tmp_path)
        assert sorted(archive.namelist()) == ["hostile-table.tex", "hostile.tex"]
    text = pdf_text(compile_pdf(tmp_path / "hostile.tex"))
    flat = squash(text)
    assert squash("All specials: & % $ # _ { } ~ ^ \\ < > | end") in flat
    assert squash("\\input{/etc/passwd} \\def\\x{boom} \\x") in flat  # printed, not executed
    assert squash("Café naïve façade, Ångström") in flat
    assert "Zoë" in text and "€5" in text and "ßøł" in text
    assert "–anddashes" in flat or "–and—dashes" in flat
    assert "U+4E2D" in text and "U+1F600" in text  # the visible markers for CJK and emoji
    assert squash("Teller_1 & co") in flat
    assert squash("100% & more") in flat


def test_demo_dialog_with_thumbnails_compiles(tmp_path):
    loaded = load_configured("codraw")
    dialog = loaded.dialogs["dialog_id"].iloc[0]
    data = dialog_transcript_zip(loaded, dialog, first=2, last=3, with_pictures=True)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = archive.namelist()
        archive.extractall(tmp_path)
    images = sorted(n for n in names if n.startswith("images/"))
    assert images == [f"images/codraw-{dialog}-002.png", f"images/codraw-{dialog}-003.png"]
    tex = tmp_path / f"codraw-{dialog}.tex"
    text = squash(pdf_text(compile_pdf(tex)))
    said = loaded.utterances[(loaded.utterances["dialog_id"] == dialog) & loaded.utterances["turn"].between(2, 3)]
    for line in said["text"]:
        assert squash(str(line))[:40] in text
    # round 1 is outside the range: no row of it (its message may be a word as short as "hi", which the
    # rounds' analysis notes could hold, so the .tex rows are checked, not the PDF's text)
    rows = (tmp_path / f"codraw-{dialog}-table.tex").read_text().splitlines()
    assert [row.split(" & ")[0] for row in rows if " & " in row and row[0].isdigit()] == ["2", "2", "3", "3"]


def test_interval_format_is_the_papers():
    assert format_interval(4.1712, 4.1012, 4.2399) == "4.17 [4.10, 4.24]"
    assert format_interval(-0.25, -0.3, -0.2) == "$-$0.25 [$-$0.30, $-$0.20]"
    assert format_interval(4.0, float("nan"), float("nan")) == "4.00"


def test_booktabs_table_compiles_with_intervals(tmp_path):
    frame = pd.DataFrame({"split": ["test", "val", "train_all & #1"], "n": [1002, 1002, 7989],
                          "mean": [4.1712, 4.2, 4.205], "sd": [0.9, 0.8, 0.85],
                          "low": [4.1012, 4.15, 4.18], "high": [4.2399, 4.25, 4.23]})
    table = booktabs_table(frame, caption="Final scores (95% CI)", label="tab:scores")
    assert r"\toprule" in table and r"\midrule" in table and r"\bottomrule" in table
    assert "mean [95\\% CI]" in table and "sd" not in table.split(r"\toprule")[1]
    (tmp_path / "table.tex").write_text(standalone_document(table), encoding="utf-8")
    text = pdf_text(compile_pdf(tmp_path / "table.tex"))
    assert "4.17 [4.10, 4.24]" in text
    assert "7,989" in text and "train_all & #1" in text and "Final scores (95% CI)" in text


@pytest.mark.parametrize("corpus", ["gos", "minecraft"])
def test_demo_transcripts_of_other_corpora_compile(tmp_path, corpus):
    loaded = load_configured(corpus)
    dialog = loaded.dialogs["dialog_id"].iloc[0]
    data = dialog_transcript_zip(loaded, dialog, 1 if corpus == "gos" else None, with_pictures=False)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        archive.extractall(tmp_path)
        tex = tmp_path / next(n for n in archive.namelist() if n.endswith(".tex") and not n.endswith("-table.tex"))
    text = squash(pdf_text(compile_pdf(tex)))
    first = loaded.utterances[loaded.utterances["dialog_id"] == dialog]
    if corpus == "gos":
        first = first[first["round"] == 1]
    assert squash(str(first["text"].iloc[0]))[:30] in text


def test_summary_of_per_dialog_data_is_split_means_with_intervals(tmp_path):
    from corpora.codraw.data.figures import final_score_chart
    from data_access.analysis.stats import mean_ci
    from data_access.exports.latex import summary_frame

    chart = final_score_chart(load_configured("codraw"))
    assert "split" in chart.data and "dialog_id" in chart.data
    summary = summary_frame(chart.data)
    first = summary.iloc[0]
    expected = mean_ci(chart.data.loc[chart.data["split"] == first["split"], "final_score"])
    assert first["final_score"] == pytest.approx(expected.mean) and first["final_score_low"] == pytest.approx(expected.low)
    table = booktabs_table(summary, caption=chart.caption)
    assert "final\\_score [95\\% CI]" in table and "n\\_rounds" in table
    (tmp_path / "t.tex").write_text(standalone_document(table), encoding="utf-8")
    text = pdf_text(compile_pdf(tmp_path / "t.tex"))
    assert format_interval(expected.mean, expected.low, expected.high) in text


def test_run_comparison_tables_merge_value_and_difference_intervals(tmp_path):
    metrics = pd.DataFrame({"run": ["baseline", "humans"], "split": ["test", "test"], "metric": ["score", "score"],
                            "n": [1002, 1002], "value": [3.91234, 4.1712], "low": [3.8, 4.1012], "high": [4.0, 4.2399]})
    table = booktabs_table(metrics, digits=3)
    assert "value [95\\% CI]" in table and "3.912 [3.800, 4.000]" in table and " low " not in table
    paired = pd.DataFrame([{"run A": "a", "run B": "b", "units": 40, "A": 4.2, "B": 4.0, "difference": -0.25,
                            "low": -0.31, "high": -0.19}])
    table = booktabs_table(paired, column_names={"difference": "A − B"})
    assert r"A \textminus{}{} B [95\% CI]" in table or r"A \textminus{} B [95\% CI]" in table
    (tmp_path / "t.tex").write_text(standalone_document(table), encoding="utf-8")
    text = pdf_text(compile_pdf(tmp_path / "t.tex"))
    assert "−0.25 [−0.31, −0.19]" in text or "-0.25 [-0.31, -0.19]" in text


def test_thumbnails_usernames_and_long_words_stay_inside_the_table_in_one_pass(tmp_path):
    """A column sized to its content put the thumbnails past the rules until a second pdflatex pass; usernames
    were hyphenated; a 120-character word ran off the page. One pass now: no width warning, nothing overfull,
    the username and the word read back whole (no hyphen added)."""
    from PIL import Image

    name, word = "averyverylongusername_of_a_coder", "x" * 120
    lines = [TranscriptLine(1, name, f"short text {word} end"), TranscriptLine(2, "Internationalisation", "ok"),
             TranscriptLine(2, "Drawer", "and one more line")]
    pictures = {1: Image.new("RGB", (600, 450), "red"), 2: Image.new("RGB", (600, 450), "blue")}
    with zipfile.ZipFile(io.BytesIO(transcript_zip("rough", "Rough edges", lines, pictures=pictures))) as archive:
        archive.extractall(tmp_path)
    text = squash(pdf_text(compile_pdf(tmp_path / "rough.tex")))
    log = (tmp_path / "rough.log").read_text(encoding="latin-1")
    assert "Table widths have changed" not in log and "Column widths have changed" not in log
    assert "Overfull \\hbox" not in log
    assert name in text and word in text and "Internationalisation" in text
