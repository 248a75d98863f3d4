"""A replay as one self-contained HTML file: every step's picture embedded as a data URI, the transcript
synced to the step, Previous / Next buttons, ←/→ keys and a step slider. It opens offline by
double-click and makes no network request.

Nothing from the data can run as script: every text is HTML-escaped, the only script is the constant one
below (allowed by its SHA-256 hash in a Content-Security-Policy ``<meta>`` tag that also forbids every
fetch except ``data:`` images), and the per-step data the script reads are integers written here.

The exporter takes a list of ``Panel``s (one per dialog shown side by side: a replay, the two dialogs of
Compare, a model run beside the humans). All panels step together; a shorter panel stays on its last
step. Pure functions: PIL images and strings in, ``str`` out.
"""
from __future__ import annotations

import base64
import hashlib
import html
import io
import os
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

from PIL import Image

from ..common import CorpusAttribute
from ..pictures import note_picture, png_image  # noqa: F401 - re-exported

# Image encoding: WebP (lossy, every current browser shows it) at quality 80 keeps the longest real CoDraw
# dialog under 1 MB, Game Of Sorts round under 2 MB and Minecraft game under 5 MB (BUDGETS; see README,
# "Sharing"); a document still over its budget is encoded again smaller (FALLBACKS). Pictures wider than
# MAX_WIDTH are scaled down first; identical pictures are stored once.
IMAGE_FORMAT = "WEBP"
IMAGE_QUALITY = 80
MAX_WIDTH = 1100
# (quality, width scale) tried in turn when a document is over its budget.
FALLBACKS = ((70, 1.0), (60, 0.85), (50, 0.7))
MB = 1_000_000
BUDGETS: Mapping[str, int] = CorpusAttribute("EXPORT_BUDGET")  # one dialog / round / game, per corpus package

_SCRIPT = """
(function () {
  var root = document.getElementById("replay");
  var last = parseInt(root.getAttribute("data-steps"), 10);
  var slider = document.getElementById("step");
  var label = document.getElementById("step-label");
  var panels = Array.prototype.slice.call(document.querySelectorAll(".panel"));
  var step = 1;
  function show(target) {
    step = Math.max(1, Math.min(last, target));
    slider.value = String(step);
    label.textContent = step + " / " + last;
    panels.forEach(function (panel) {
      var own = Math.min(step, parseInt(panel.getAttribute("data-steps"), 10));
      var frames = panel.getAttribute("data-frames").split(",");
      var frame = frames[own - 1];
      panel.querySelectorAll("img.frame").forEach(function (img) {
        img.hidden = img.getAttribute("data-frame") !== frame;
      });
      panel.querySelector(".panel-step").textContent = panel.getAttribute("data-unit") + " " + own;
      var latest = null;
      panel.querySelectorAll(".line").forEach(function (line) {
        var at = parseInt(line.getAttribute("data-step"), 10);
        line.hidden = at > own;
        line.classList.toggle("now", at === own);
        if (at <= own) { latest = line; }
      });
      var transcript = panel.querySelector(".transcript");
      if (latest !== null) { transcript.scrollTop = latest.offsetTop + latest.offsetHeight - transcript.clientHeight + 8; }
    });
    document.getElementById("prev").disabled = step <= 1;
    document.getElementById("next").disabled = step >= last;
  }
  document.getElementById("prev").addEventListener("click", function () { show(step - 1); });
  document.getElementById("next").addEventListener("click", function () { show(step + 1); });
  slider.addEventListener("input", function () { show(parseInt(slider.value, 10)); });
  document.addEventListener("keydown", function (event) {
    if (event.key === "ArrowLeft") { show(step - 1); event.preventDefault(); }
    else if (event.key === "ArrowRight") { show(step + 1); event.preventDefault(); }
    else if (event.key === "Home") { show(1); event.preventDefault(); }
    else if (event.key === "End") { show(last); event.preventDefault(); }
  });
  show(parseInt(root.getAttribute("data-start"), 10) || 1);
})();
"""

SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(_SCRIPT.encode("utf-8")).digest()).decode("ascii")
CONTENT_SECURITY_POLICY = (f"default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
                           f"script-src '{SCRIPT_HASH}'; base-uri 'none'; form-action 'none'")

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1rem 1.5rem; color: #222; }
h1 { font-size: 1.3rem; margin: 0 0 .25rem; }
.meta { color: #666; font-size: .85rem; margin: 0 0 .75rem; }
.controls { display: flex; gap: .6rem; align-items: center; margin: .5rem 0 1rem; position: sticky; top: 0;
            background: #fff; padding: .4rem 0; z-index: 1; }
.controls input[type=range] { flex: 1; }
.controls button { font-size: 1rem; padding: .25rem .8rem; }
#step-label { min-width: 5.5rem; text-align: right; font-variant-numeric: tabular-nums; }
.panels { display: flex; gap: 1.5rem; flex-wrap: wrap; align-items: flex-start; }
.panel { flex: 1 1 420px; min-width: 320px; }
.panel h2 { font-size: 1.05rem; margin: 0 0 .2rem; }
.panel-step { color: #666; font-size: .85rem; margin-bottom: .3rem; }
.panel img.frame { max-width: 100%; height: auto; border: 1px solid #ddd; }
.transcript { position: relative; max-height: 18rem; overflow-y: auto; border: 1px solid #ddd;
              padding: .4rem .6rem; margin-top: .5rem; font-size: .9rem; }
.single .stage { display: flex; gap: 1rem; align-items: flex-start; flex-wrap: wrap; }
.single .pictures { flex: 3 1 480px; min-width: 0; }
.single .transcript { flex: 1 1 16rem; max-height: 80vh; margin-top: 0; }
.line { margin: .15rem 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.line .who { font-weight: 600; margin-right: .4rem; }
.line .at { color: #999; font-size: .75rem; margin-right: .4rem; font-variant-numeric: tabular-nums; }
.line.now { background: #fff3c4; }
.hint { color: #888; font-size: .8rem; margin-top: 1rem; }
"""


@dataclass
class Line:
    """One utterance or event of a transcript, shown from ``step`` on (highlighted at ``step``)."""

    step: int
    speaker: str
    text: str


@dataclass
class Panel:
    """One dialog (or model run) of the exported replay: a picture per step and its transcript."""

    title: str
    pictures: Sequence[Image.Image]  # picture i is the state at step i + 1
    lines: Sequence[Line] = field(default_factory=list)
    unit: str = "step"  # what a step is called in this panel: "round", "utterance", "step"
    subtitle: str = ""


def encode_picture(image: Image.Image, image_format: str = IMAGE_FORMAT, quality: int = IMAGE_QUALITY,
                   max_width: int = MAX_WIDTH) -> str:
    """``image`` as a ``data:`` URI (scaled down to ``max_width`` pixels, RGB)."""
    picture = image if image.mode == "RGB" else image.convert("RGB")
    if picture.width > max_width:
        picture = picture.resize((max_width, round(picture.height * max_width / picture.width)), Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    fmt = image_format.upper()
    if fmt == "PNG":
        picture.save(buffer, format="PNG", optimize=True)
    elif fmt == "WEBP":
        # method 2 of 0..6: two thirds of method 4's time for 3% more bytes (a Game Of Sorts round's boards)
        picture.save(buffer, format="WEBP", quality=quality, method=2)
    else:
        picture.save(buffer, format="JPEG", quality=quality, optimize=True)
    mime = {"PNG": "image/png", "WEBP": "image/webp"}.get(fmt, "image/jpeg")
    return f"data:{mime};base64,{base64.b64encode(buffer.getvalue()).decode('ascii')}"


def _text(value) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _panel_html(index: int, panel: Panel, encode: Callable[[Image.Image], str]) -> str:
    if not panel.pictures:
        raise ValueError(f"panel {panel.title!r} has no pictures")
    frames: list[int] = []
    unique: list[Image.Image] = []
    seen: dict[bytes, int] = {}
    for picture in panel.pictures:
        rgb = picture if picture.mode == "RGB" else picture.convert("RGB")
        key = hashlib.sha256(rgb.tobytes() + repr(picture.size).encode()).digest()
        if key not in seen:
            seen[key] = len(unique)
            unique.append(picture)
        frames.append(seen[key])
    # Encoding is most of an export's time and Pillow's encoders release the GIL: one thread per core.
    with ThreadPoolExecutor(max_workers=min(len(unique), os.cpu_count() or 1, 4)) as pool:
        uris = list(pool.map(encode, unique))
    images = "\n".join(
        f'<img class="frame" data-frame="{i}" alt="{_text(panel.title)} picture {i + 1}" src="{uri}"'
        f'{"" if i == frames[0] else " hidden"}>' for i, uri in enumerate(uris))
    lines = "\n".join(
        f'<div class="line" data-step="{int(line.step)}"><span class="at">{_text(panel.unit)} {int(line.step)}</span>'
        f'<span class="who">{_text(line.speaker)}</span>{_text(line.text)}</div>'
        for line in sorted(panel.lines, key=lambda line: line.step))
    subtitle = f'<div class="meta">{_text(panel.subtitle)}</div>' if panel.subtitle else ""
    return (f'<section class="panel" id="panel-{index}" data-steps="{len(panel.pictures)}" '
            f'data-frames="{",".join(str(f) for f in frames)}" data-unit="{_text(panel.unit)}">\n'
            f'<h2>{_text(panel.title)}</h2>{subtitle}<div class="panel-step"></div>\n<div class="stage"><div class="pictures">\n{images}\n</div>\n'
            f'<div class="transcript" aria-label="transcript">\n{lines}\n</div></div>\n</section>')


def replay_html(title: str, panels: Sequence[Panel], *, description: str = "",
                image_format: str = IMAGE_FORMAT, quality: int = IMAGE_QUALITY, max_width: Optional[int] = None,
                budget: Optional[int] = None, start: int = 1) -> str:
    """The self-contained HTML document of ``panels`` stepping together (see the module docstring).

    ``max_width`` caps each picture's width (default: MAX_WIDTH for one panel, 700 px for several). With
    ``budget`` (bytes), a document over it is encoded again with lower quality and then smaller pictures
    (``FALLBACKS``); the smallest attempt is returned if none fits. It opens at step ``start`` (the step the
    reader was viewing), clamped to the steps it has."""
    if not panels:
        raise ValueError("nothing to export: no panels")
    width = max_width or (MAX_WIDTH if len(panels) == 1 else 700)
    attempts = [(quality, width)] + [(min(quality, q), int(width * scale)) for q, scale in FALLBACKS]
    document = ""
    for attempt_quality, attempt_width in attempts:
        document = _document(title, panels, description, image_format, attempt_quality, attempt_width, start)
        if budget is None or len(document.encode("utf-8")) <= budget:
            break
    return document


def _document(title: str, panels: Sequence[Panel], description: str, image_format: str, quality: int,
              width: int, start: int = 1) -> str:
    def encode(image: Image.Image) -> str:
        return encode_picture(image, image_format, quality, width)

    steps = max(len(panel.pictures) for panel in panels)
    start = min(max(1, int(start)), steps)
    body = "\n".join(_panel_html(i, panel, encode) for i, panel in enumerate(panels))
    meta = f'<p class="meta">{_text(description)}</p>' if description else ""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_text(title)}</title>
<style>{_STYLE}</style>
</head>
<body>
<main id="replay" data-steps="{steps}" data-start="{start}">
<h1>{_text(title)}</h1>
{meta}
<div class="controls">
<button id="prev" type="button" title="Previous step (←)">◀ Previous</button>
<input id="step" type="range" min="1" max="{steps}" value="1" step="1" aria-label="step">
<button id="next" type="button" title="Next step (→)">Next ▶</button>
<span id="step-label">1 / {steps}</span>
</div>
<div class="panels{' single' if len(panels) == 1 else ''}">
{body}
</div>
<p class="hint">← / → step, Home / End jump to the first / last step. A self-contained export: it loads nothing from the network.</p>
</main>
<script>{_SCRIPT}</script>
</body>
</html>
"""


# -- from a loaded corpus ------------------------------------------------------------------------------------

STEP_UNITS: Mapping[str, str] = CorpusAttribute("EXPORT_STEP_UNIT")


def replay_panel(loaded, dialog_id: str, round: Optional[int] = None, title: Optional[str] = None) -> Panel:
    """A dialog (a Game Of Sorts round) of a loaded corpus as a ``Panel``: the replay's snapshot at every
    step and every utterance at its step."""
    from .. import snapshots
    from ..common import CORPUS_TITLES

    n_steps = snapshots.step_count(loaded, dialog_id, round)
    if n_steps <= 0:
        raise ValueError(f"{dialog_id}: no steps to export")
    pictures = [snapshots.snapshot(loaded, dialog_id, step, round) for step in range(1, n_steps + 1)]
    said = snapshots.step_messages(loaded, dialog_id, n_steps, round, up_to=True)
    lines = [Line(int(row.turn), str(row.speaker), str(row.text)) for row in said.itertuples(index=False)]
    row = snapshots.dialog_row(loaded, dialog_id) or {}
    where = f", round {round}" if round is not None else ""
    facts = [f"split {row['split']}" if row.get("split") else "", f"{n_steps} {STEP_UNITS.get(loaded.corpus, 'step')}s"]
    return Panel(title or f"{CORPUS_TITLES.get(loaded.corpus, loaded.corpus)} · {dialog_id}{where}", pictures, lines,
                 unit=STEP_UNITS.get(loaded.corpus, "step"), subtitle=" · ".join(f for f in facts if f))


def dialog_replay_html(loaded, dialog_id: str, round: Optional[int] = None, start: int = 1, **options) -> str:
    """One dialog's replay as a self-contained HTML document, opening at step ``start``."""
    panel = replay_panel(loaded, dialog_id, round)
    source = "demo corpus" if loaded.is_demo else f"source: {Path(str(loaded.source)).name}"
    options.setdefault("budget", BUDGETS.get(loaded.corpus))
    return replay_html(panel.title, [panel], description=f"Replay exported from the dialogue dashboard ({source}).",
                       start=start, **options)


def compare_replay_html(loaded, dialogs: Sequence[tuple[str, Optional[int]]], **options) -> str:
    """Several dialogs of one corpus side by side, stepping together, as one HTML document."""
    panels = [replay_panel(loaded, dialog_id, round) for dialog_id, round in dialogs]
    title = " vs ".join(panel.title for panel in panels)
    options.setdefault("budget", BUDGETS.get(loaded.corpus, 0) * len(panels) or None)
    return replay_html(title, panels, description="Dialogs side by side, stepping together; a shorter one "
                                                  "stays on its last step.", **options)


# -- a model run beside the humans ---------------------------------------------------------------------------

def run_panel(loaded, run, dialog_id: str, round: Optional[int] = None) -> Panel:
    """A model run's output at every step of a dialog, as a ``Panel`` to show beside the humans'."""
    from .. import snapshots

    n_steps = snapshots.step_count(loaded, dialog_id, round)
    if n_steps <= 0:
        raise ValueError(f"{dialog_id}: no steps to export")
    from ..contract import scoring_of

    pictures = scoring_of(loaded).run_pictures(loaded, run, dialog_id, round, n_steps)
    said = snapshots.step_messages(loaded, dialog_id, n_steps, round, up_to=True)
    lines = [Line(int(row.turn), str(row.speaker), str(row.text)) for row in said.itertuples(index=False)]
    return Panel(f"Model run: {run.name}", pictures, lines, unit=STEP_UNITS.get(loaded.corpus, "step"),
                 subtitle=f"run file: {Path(str(run.source)).name}")


def run_replay_html(loaded, run, dialog_id: str, round: Optional[int] = None, **options) -> str:
    """The humans' replay and a model run's output side by side, stepping together, as one HTML document."""
    human = replay_panel(loaded, dialog_id, round)
    model = run_panel(loaded, run, dialog_id, round)
    options.setdefault("budget", BUDGETS.get(loaded.corpus, 0) * 2 or None)
    return replay_html(f"{human.title} · humans and {model.title.lower()}", [human, model],
                       description="The humans' dialog beside a model run's output at the same step.", **options)
