"""Reading the shared transcript renderer's output (``ui.transcript``) back from an AppTest run."""
from __future__ import annotations

import html
import re

LINE = re.compile(r'<div class="(vgd-line[^"]*)" data-turn="(\d+)"><div class="vgd-meta">(.*?)</div>'
                  r'<div class="vgd-text">(.*?)</div></div>', re.S)


def transcript_lines(at) -> list[dict]:
    """Every transcript line on the page: turn, meta, text, current (marked) and later (greyed)."""
    lines = []
    for element in at.get("html"):
        for classes, turn, meta, text in LINE.findall(element.proto.body):
            lines.append({"turn": int(turn), "meta": html.unescape(meta), "text": html.unescape(re.sub(r"<[^>]+>", "", text)), "html": text,
                          "current": "vgd-current" in classes, "later": "vgd-later" in classes})
    return lines


def transcript_texts(at) -> list[str]:
    return [line["text"] for line in transcript_lines(at)]
