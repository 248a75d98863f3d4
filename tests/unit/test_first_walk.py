"""Issue 39's rough edges of a first walk, at the lowest level that can fail: each test failed on the code
before the fix."""
from __future__ import annotations

import io
import json
import re
import zipfile

import pandas as pd
import pytest

from data_access.corpora import load_configured
from data_access.exports.latex import dialog_transcript_zip

from .latex_tools import compile_pdf, pdf_text, squash


def _table(data: bytes) -> tuple[str, dict[str, bytes]]:
    archive = zipfile.ZipFile(io.BytesIO(data))
    files = {name: archive.read(name) for name in archive.namelist()}
    return next(v.decode() for k, v in files.items() if k.endswith("-table.tex")), files


def test_the_latex_transcript_carries_the_peek_the_scores_and_the_cr_marks(tmp_path):
    """Before: the transcript held the messages only; the Replay's peek, scores and CR marks were left out."""
    loaded = load_configured("codraw")
    dialogs = loaded.dialogs[loaded.dialogs["peek_round"].notna()]
    dialog = dialogs.iloc[0]
    peek = int(dialog["peek_round"])
    rounds = loaded.frames["rounds"]
    scores = rounds[rounds["dialog_id"] == dialog["dialog_id"]].set_index("round")["score_final"]

    table, _ = _table(dialog_transcript_zip(loaded, dialog["dialog_id"]))
    assert f"peek before round {peek}" in table and f"final score {dialog['final_score']:.2f}" in table
    assert table.count("peeked at the drawing before this round") == 1
    assert all(f"core after this round {score:.2f}" in table for score in scores.dropna())

    cr_round = 2 if peek != 2 else 3
    table, files = _table(dialog_transcript_zip(loaded, dialog["dialog_id"], marked=(cr_round,)))
    assert table.count("clarification request (published CR layer)") == 1
    assert f"CR in round {cr_round}" in table
    lines = table.splitlines()
    note = next(i for i, line in enumerate(lines) if "clarification request" in line)
    assert re.match(rf"{cr_round} & ", lines[note - 1])  # under the CR round's last line
    for name, content in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(content)
    document = tmp_path / next(n for n in files if n.endswith(".tex") and not n.endswith("-table.tex"))
    text = squash(pdf_text(compile_pdf(document)))
    assert squash("is a clarification request (published CR layer)") in text and squash(f"peek before round {peek}") in text


def test_the_notes_files_carry_links_with_the_servers_address(tmp_path):
    """Before: ``/replay?…``, which opens nothing from an e-mail or a spreadsheet."""
    from data_access.store import NotesStore

    store = NotesStore(tmp_path / "notes.sqlite3")
    store.add_note("gos", "g1", "a note", round=3, turn=2)
    address = "https://lab.example:8443/dashboard"
    csv = pd.read_csv(io.BytesIO(store.export_csv(link_base=address)))
    assert csv["link"].tolist() == [f"{address}/replay?corpus=gos&dialog=g1&round=3&turn=2"]
    lines = store.export_jsonl(link_base=address + "/").decode().splitlines()
    assert json.loads(lines[0])["link"] == f"{address}/replay?corpus=gos&dialog=g1&round=3&turn=2"


@pytest.mark.parametrize("corpus", ["codraw", "gos", "minecraft"])
def test_a_first_loads_progress_text_says_the_number_its_bar_shows_and_ready_only_at_the_end(tmp_path, corpus):
    """Before: "Read 8 of 8 games" while the bar was still on its way from 1%, and "Done" at 100% while the
    Parquet cache was still being written (the box still said "Reading…")."""
    from data_access.corpora import is_cached, load_source
    from data_access.registry import corpus_module
    from data_access.sources import Source

    source = Source(corpus, None, None, corpus_module(corpus))
    reports = []

    def progress(message, fraction=None):
        reports.append((message, fraction, is_cached(source, tmp_path)))

    load_source(source, cache_root=tmp_path, progress=progress)
    fractions = [fraction for _, fraction, _ in reports]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and fractions.count(1.0) == 1
    for message, fraction, _ in reports:  # Streamlit's bar shows int(fraction * 100)
        assert re.search(rf"\({int(fraction * 100)}%( of the load)?\)$", message), (message, fraction)
    assert not any(re.match(r"(Done|Ready)\b", message) for message, _, _ in reports[:-1])
    message, _, written = reports[-1]
    assert message.startswith("Ready") and written  # the end is said once the cache is written
    assert "Writing the Parquet cache" in reports[-2][0]


def test_keyness_shows_the_bound_of_a_p_that_underflows_not_zero():
    """Before: a keyness (or collocation) row with G² past ~1,490 showed p = 0."""
    from data_access.words.stats import chi2_1df_p
    from ui.words.index import word_table_html

    g2 = 2000.0
    assert chi2_1df_p(g2)[0] == 0.0  # what the statistic gives in floating point
    frame = pd.DataFrame({"rank": [1, 2], "word": ["the", "a"], "g2": [g2, 9.0], "p": [0.0, 0.0031]})
    cells = re.findall(r'<td class="num">([^<]*)</td>', word_table_html(frame, ["#", "#"], {"g2": ",.1f", "p": ".2g"}, "k"))
    assert "&lt; 1e-436" in cells and "0.0031" in cells and "0" not in cells

    from data_access.words.stats import p_text

    assert p_text(chi2_1df_p(1420.0)[0], 1420.0) == "< 1e-310"  # a subnormal p (9.5e-311) is a bound too
