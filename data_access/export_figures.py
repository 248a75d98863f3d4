"""Charts as static SVG / PDF for papers and slides, through plotly's own exporter (kaleido 1.x), with the
chart's caption and a data-source line under the plot.

kaleido 1.x drives a Chrome/Chromium it finds on the machine; it never downloads one here. When
``BROWSER_PATH`` is unset and Debian's ``/usr/bin/chromium`` exists, that one is used (the browser the
tests use). Pure functions: a figure and strings in, bytes out (each call starts and stops a headless
browser, about 2–3 s).
"""
from __future__ import annotations

import html
import os
import shutil
import textwrap
from pathlib import Path
from typing import Iterable, Optional

import plotly.graph_objects as go

FORMATS = {"svg": "image/svg+xml", "pdf": "application/pdf"}
WIDTH, HEIGHT = 900, 480
CAPTION_CHARACTERS = 130
MIN_LEFT = 80  # pixels left of the plot area for y tick labels and the y-axis title
AXIS_SPACE = 75  # pixels under the plot area kept for tick labels and the x-axis title  # per line of the caption under the plot
CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")


class FigureExportError(RuntimeError):
    """The static export failed (typically: no Chrome/Chromium for kaleido). The message says why."""


def browser_path() -> Optional[str]:
    """The browser kaleido will drive: ``BROWSER_PATH`` if set, else the first installed candidate."""
    configured = os.environ.get("BROWSER_PATH")
    if configured:
        return configured
    for candidate in CHROMIUM_CANDIDATES:
        if Path(candidate).exists():
            return candidate
    found = shutil.which("chromium") or shutil.which("google-chrome")
    return found


def source_line(corpora: Iterable[str]) -> str:
    """'Data: CoDraw (CoDraw_1_0.json.gz); …' for the configured sources (file or folder names only)."""
    from .common import CORPUS_TITLES
    from .sources import configured_source

    parts = []
    for name in corpora:
        source = configured_source(name)
        title = CORPUS_TITLES.get(name, name)
        parts.append(f"{title} (built-in demo corpus)" if source.path is None else f"{title} ({Path(source.path).name})")
    return "Data: " + "; ".join(parts) + "." if parts else ""


def corpora_of_chart(key: str) -> list[str]:
    """The corpora a chart of the analysis pages draws, from its key ('codraw_…', 'gos_…', 'overview_…')."""
    from .common import CORPUS_NAMES

    prefix = key.split("_", 1)[0]
    return [prefix] if prefix in CORPUS_NAMES else list(CORPUS_NAMES)


def _with_caption(figure: go.Figure, caption: str, source: str, width: int, height: int) -> go.Figure:
    """A copy of ``figure`` with ``caption`` and ``source`` wrapped under the plot area."""
    out = go.Figure(figure)
    out.update_layout(width=width, height=height)
    lines = []
    for block in (caption, source):
        if block:
            lines += textwrap.wrap(block, CAPTION_CHARACTERS) or [""]
    if not lines:
        return out
    margin = out.layout.margin
    axis_space = max(AXIS_SPACE, int(margin.b) if margin and margin.b is not None else 0)
    caption_height = 15 * len(lines) + 12
    # The app's compact margins rely on plotly.js growing them in the browser; a static export needs room.
    left = max(MIN_LEFT, int(margin.l) if margin and margin.l is not None else 0)
    out.update_layout(margin=dict(b=axis_space + caption_height, l=left, r=max(20, int(margin.r or 0) if margin else 20)),
                      height=height + caption_height)
    out.add_annotation(text="<br>".join(html.escape(line, quote=False) for line in lines), xref="paper", yref="paper",
                       x=0, y=0, yshift=-axis_space, xanchor="left", yanchor="top", align="left",
                       showarrow=False, font=dict(size=11, color="#333"))
    return out


def figure_bytes(figure: go.Figure, fmt: str, caption: str = "", source: str = "",
                 width: Optional[int] = None, height: Optional[int] = None) -> bytes:
    """``figure`` as ``fmt`` ('svg' or 'pdf') bytes, with the caption and source line under it."""
    fmt = fmt.lower()
    if fmt not in FORMATS:
        raise ValueError(f"unsupported format {fmt!r}; use one of {', '.join(FORMATS)}")
    width = width or WIDTH
    height = height or int(figure.layout.height or HEIGHT)
    browser = browser_path()
    if browser is None:
        raise FigureExportError("no Chrome/Chromium found for kaleido: install chromium or set BROWSER_PATH")
    os.environ.setdefault("BROWSER_PATH", browser)
    import plotly.io as pio

    try:
        framed = _with_caption(figure, caption, source, width, height)
        return pio.to_image(framed, format=fmt, width=width, height=framed.layout.height, scale=1)
    except Exception as exc:  # noqa: BLE001 - kaleido raises many kinds; the UI shows one line
        raise FigureExportError(f"static export failed: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from exc
