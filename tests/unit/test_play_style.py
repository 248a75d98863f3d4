"""The Play page's CSS (the shell's ``ui/assets/play.css`` and each corpus's game CSS, one stylesheet on the page)
keeps every move cheap to draw: no ``:has()`` selector. A rule behind ``body:has(...)`` makes each change to the
page's DOM (a readout's text, an action listed) restyle every element of the page; in the Minecraft game that was
2-4 ms of each click's and key's handler (benchmarks/play.py, docs/benchmarks.md "Play")."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHEETS = [ROOT / "ui" / "assets" / "play.css", *sorted(ROOT.glob("corpora/*/views/play.css"))]


def test_the_play_pages_css_has_no_has_selector():
    assert len(SHEETS) >= 4  # the shell's and the three built-in games'
    for sheet in SHEETS:
        rules = re.sub(r"/\*.*?\*/", "", sheet.read_text(encoding="utf-8"), flags=re.S)  # comments may name it
        assert ":has(" not in rules, f"{sheet.relative_to(ROOT)}: a :has() selector restyles the page at every move"


def test_the_hidden_page_run_button_is_hidden_by_its_class():
    from ui.play.component import PAGE_RUN_BOX

    rules = (ROOT / "ui" / "assets" / "play.css").read_text(encoding="utf-8")
    assert re.search(rf"(^|\n)\.st-key-{PAGE_RUN_BOX} \{{ display: none; \}}", rules)
