"""Reading the shared transcript renderer's output (``ui.replay.transcript``) back from an AppTest run."""
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
    return [line["text"] for line in transcript_lines(at) + player_lines(at)]


def player_data(at) -> list[dict]:
    """The payload of every step player on the page (``ui.replay.step_player``), as its JavaScript receives it."""
    import json

    return [json.loads(element.proto.json) for element in at.get("bidi_component")
            if "steps" in json.loads(element.proto.json or "{}")]


def player_lines(at) -> list[dict]:
    """The transcript lines a step player shows at its step, as ``transcript_lines`` gives them: later lines
    only when the player shows the whole dialog."""
    lines = []
    for data in player_data(at):
        step = data["step"]
        for line in data["lines"]:
            if line["turn"] > step and not data.get("showAll"):
                continue
            meta = f"{line['who']} · {data['unit'].lower()} {line['turn']}"  # as the player writes it
            lines.append({"turn": line["turn"], "meta": meta, "text": line["text"], "html": html.escape(line["text"]),
                          "current": line["turn"] == step, "later": line["turn"] > step})
    return lines


def player_captions(at) -> list[str]:
    """The captions of the pictures of the step each player shows."""
    return [picture["caption"] for data in player_data(at)
            for picture in data["steps"].get(str(data["step"]), {}).get("pictures", [])]


def player_marked(at) -> list[str]:
    """Per step player with a search match marked in its lines, those lines as HTML (``<mark>`` around each
    match segment, the rest escaped), as the player builds them from the segments with text nodes."""
    out = []
    for data in player_data(at):
        lines = ["".join(f"<mark>{html.escape(piece)}</mark>" if match else html.escape(piece) for piece, match in line["segments"])
                 for line in data["lines"] if any(match for _, match in line.get("segments", []))]
        if lines:
            out.append("".join(f"<div>{line}</div>" for line in lines))
    return out
