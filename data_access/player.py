"""What the step player (``ui/replay/step_player.py``) is sent about one dialog: pure data, no streamlit.

The player steps, scrubs and plays in the browser; the server sends each dialog's transcript and timeline
once and the steps of a *window* around the step shown (their pictures as PNG, their facts, event and table).
A corpus describes one step as a ``PlayerStep`` and the dialog's timeline as ``TimelineEntry`` values (its
``ui/replay_<corpus>.py``); ``payload`` turns them into the JSON the player reads, with each picture replaced
by the URL ``url_of`` gives it (Streamlit's media endpoint: the bytes travel once per URL, a rerun sends the
URL again, not the picture).

The window is bounded twice: in steps (``WINDOW_BACK`` behind, ``WINDOW_AHEAD`` ahead of the step shown) and
in bytes (``WINDOW_BYTES``: steps furthest from the one shown are left out first). Every report of a new step
re-centres it, so a reader walking through a 100-step Minecraft game always has the next steps in the browser.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional, Sequence

WINDOW_BACK = 4
WINDOW_AHEAD = 12  # the steps a window holds ahead: enough for a reader tapping → five times a second between runs
WINDOW_BYTES = 8_000_000  # the pictures one window may hold (a Minecraft step's two pictures: ~40-90 KB)


@dataclass(frozen=True)
class Picture:
    """One picture of a step: PNG bytes (None: ``caption`` says why there is none)."""

    png: Optional[bytes]
    caption: str


@dataclass(frozen=True)
class PlayerStep:
    """One step as the player shows it beside its pictures: facts (label, value), the step's event (a
    sentence, level info / success / warning), notes (peek, CR) and one table (changes, ranks, actions)."""

    step: int
    pictures: tuple[Picture, ...]
    facts: tuple[tuple[str, str], ...] = ()
    event: str = ""
    event_level: str = "info"
    notes: tuple[str, ...] = ()
    table_title: str = ""
    table_columns: tuple[str, ...] = ()
    table_rows: tuple[tuple[str, ...], ...] = ()

    @property
    def size(self) -> int:
        return sum(len(p.png or b"") for p in self.pictures)


@dataclass(frozen=True)
class TimelineEntry:
    """One step on the timeline: a value drawn as a bar (score, F1, ranks so far; None: no bar), short marks
    (``MARKS``) and what hovering it says."""

    value: Optional[float] = None
    marks: tuple[str, ...] = ()
    title: str = ""


# mark -> (glyph, what it means): the legend under the timeline
MARKS = {
    "peek": ("👁", "the Teller peeked"),
    "cr": ("?", "clarification request"),
    "lock": ("🔒", "a lock"),
    "rank": ("★", "a rank agreed"),
    "mismatch": ("✗", "a mismatched lock"),
    "place": ("+", "blocks placed"),
    "remove": ("−", "blocks removed"),
}


@dataclass(frozen=True)
class PlayerDialog:
    """Everything about one dialog (one round) that does not change with the step."""

    token: str  # names the dialog (and round): a new token resets the player
    unit: str  # "Round", "Step", "Message"
    n_steps: int
    lines: tuple[dict, ...]  # turn, who, text, lead (bool), time
    timeline: tuple[TimelineEntry, ...]
    value_label: str = ""
    legend: str = ""
    rounds: tuple[int, int] = (0, 0)  # (round, of rounds) where the corpus has rounds, else (0, 0)
    extra: dict = field(default_factory=dict)


def window(step: int, n_steps: int, back: int = WINDOW_BACK, ahead: int = WINDOW_AHEAD) -> list[int]:
    """The steps sent with ``step``: ``step`` first, then outward (ahead before behind), clamped to the dialog."""
    order = [step]
    for distance in range(1, max(back, ahead) + 1):
        if distance <= ahead and step + distance <= n_steps:
            order.append(step + distance)
        if distance <= back and step - distance >= 1:
            order.append(step - distance)
    return order


def within_budget(steps: Iterable[PlayerStep], budget: int = WINDOW_BYTES) -> list[PlayerStep]:
    """``steps`` (nearest first) as long as their pictures fit in ``budget`` bytes; the first always."""
    kept: list[PlayerStep] = []
    total = 0
    for index, one in enumerate(steps):
        total += one.size
        if index and total > budget:
            break
        kept.append(one)
    return kept


def transcript_lines(lines, lead_roles: Sequence[str]) -> tuple[dict, ...]:
    """Rows (turn, speaker, role, text; optional time) as the player's transcript: plain strings, set in the
    page with ``textContent``."""
    out = []
    has_time = "time" in getattr(lines, "columns", ())
    for row in lines.itertuples(index=False):
        speaker = _text(getattr(row, "speaker", ""))
        role = _text(getattr(row, "role", ""))
        who = speaker or role or "?"
        if role and speaker and role != speaker:
            who = f"{speaker} ({role})"
        out.append({"turn": int(row.turn), "who": who, "text": _text(row.text), "lead": role in lead_roles,
                    "time": _text(row.time) if has_time else ""})
    return tuple(out)


def _text(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def _number(value: Optional[float]) -> Optional[float]:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return round(float(value), 4)


def png_size(png: Optional[bytes]) -> Optional[tuple[int, int]]:
    """(width, height) of a PNG from its header (its first chunk, IHDR, at a fixed place), or None."""
    if not png or len(png) < 24 or png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        return None
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    return (width, height) if width > 0 and height > 0 else None


def png_aspect(png: Optional[bytes]) -> Optional[float]:
    """Width / height of a PNG from its header, or None: the player sizes a picture's box before the picture is
    decoded, so a step's layout does not move as pictures arrive."""
    size = png_size(png)
    return round(size[0] / size[1], 4) if size else None


def payload(dialog: PlayerDialog, steps: Sequence[PlayerStep], step: int, goto: int,
            url_of: Callable[[bytes, str], str], **settings) -> dict:
    """The JSON the player reads: the dialog, the steps of the window (pictures as URLs) and the step the
    server wants shown (applied by the player only when ``goto`` changed: a link, Back, another round)."""
    sent = {}
    for one in steps:
        sent[str(one.step)] = {
            "pictures": [{"src": url_of(p.png, f"{one.step}.{i}") if p.png else "", "caption": p.caption,
                          "aspect": png_aspect(p.png), "width": (png_size(p.png) or (None,))[0]}
                         for i, p in enumerate(one.pictures)],
            "facts": [list(f) for f in one.facts], "event": one.event, "level": one.event_level,
            "notes": list(one.notes), "table": {"title": one.table_title, "columns": list(one.table_columns),
                                                "rows": [list(r) for r in one.table_rows]}}
    return {
        "token": dialog.token, "unit": dialog.unit, "n": dialog.n_steps, "step": step, "goto": goto,
        "lines": list(dialog.lines), "valueLabel": dialog.value_label, "legend": dialog.legend,
        "timeline": [{"value": _number(t.value), "marks": list(t.marks), "title": t.title} for t in dialog.timeline],
        "glyphs": {name: glyph for name, (glyph, _) in MARKS.items()},
        "rounds": list(dialog.rounds), "steps": sent, **dialog.extra, **settings,
    }
