"""Static markdown tables and code spans (``ui.glossary.markdown_table``, ``ui.widgets.md_code``): text from a
file stays text, numbers are formatted like the data grid formats them, columns carry the glossary's names."""
from __future__ import annotations

import math
import re

import pandas as pd

from ui.glossary import glossary_markdown, markdown_table
from ui.widgets import md_code


def cells(table: str) -> list[list[str]]:
    return [[c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]] for line in table.splitlines()]


def test_a_table_has_glossary_headers_aligned_numbers_and_escaped_text():
    frame = pd.DataFrame({"corpus": ["Co|Draw <b>", "*x*"], "dialogs": [9993, 12], "tokens_per_message": [10.456, math.nan],
                          "share": [0.5, -0.0001]})
    rows = cells(markdown_table(frame))
    assert rows[0] == ["corpus", "dialogs", "tokens \\/ message", "share"]
    assert rows[1] == [":--", "--:", "--:", "--:"]
    assert rows[2] == ["Co\\|Draw \\<b\\>", "9,993", "10.5", "0.50"]
    assert rows[3] == ["\\*x\\*", "12", "–", "0.00"]  # a missing value is a dash; never "-0.00"
    assert len({len(r) for r in rows}) == 1  # an escaped pipe does not split a cell


def test_missing_values_of_every_kind_are_a_dash():
    frame = pd.DataFrame({"round": pd.array([1, pd.NA], dtype="Int64"), "when": [pd.Timestamp("2026-11-30"), pd.NaT]})
    assert cells(markdown_table(frame))[3] == ["–", "–"]
    assert cells(markdown_table(frame))[2][0] == "1"


def test_labels_and_float_format_can_be_given():
    table = markdown_table(pd.DataFrame({"weight": [5.0, -1.0], "flag": [True, False]}), labels={"weight": "w"},
                           float_format="%.3f")
    assert cells(table)[2:] == [["5.000", "yes"], ["-1.000", "no"]]
    assert cells(table)[0] == ["w", "flag"]


def test_the_glossary_names_each_column_once():
    text = glossary_markdown(["dialogs", "not_a_glossary_column", "replay_steps"])
    lines = text.splitlines()
    assert len(lines) == 2 and lines[0].startswith("- **dialogs**: One recorded session")
    assert "Replay steps:" not in lines[1]


def test_a_code_span_holds_any_text_verbatim():
    assert md_code("/data/codraw") == "` /data/codraw `"
    assert md_code("a`b``c") == "``` a`b``c ```"  # a fence longer than any backtick run inside
    assert "\n" not in md_code("two\nlines")
