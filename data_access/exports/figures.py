"""Charts as static SVG / PDF for papers and slides, through plotly's own exporter (kaleido 1.x), with the
chart's caption and a data-source line under the plot.

kaleido 1.x drives a Chrome/Chromium it finds on the machine; it never downloads one here. When
``BROWSER_PATH`` is unset and Debian's ``/usr/bin/chromium`` exists, that one is used (the browser the
tests use). A figure and strings in, bytes out. One headless browser serves every export of the process
(``ChartBrowser``): the first export starts it (a few seconds), later ones take a fraction of a second; it
is closed when the process exits (or by ``close_browser``), and a new one is started after a failure.
"""
from __future__ import annotations

import asyncio
import atexit
import html
import os
import shutil
import textwrap
import threading
from pathlib import Path
from typing import Any, Iterable, Optional

import plotly.graph_objects as go

FORMATS = {"svg": "image/svg+xml", "pdf": "application/pdf"}
WIDTH, HEIGHT = 900, 480
CAPTION_CHARACTERS = 130
MIN_LEFT = 80  # pixels left of the plot area for y tick labels and the y-axis title
AXIS_SPACE = 75  # pixels under the plot area kept for tick labels and the x-axis title  # per line of the caption under the plot
CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
START_TIMEOUT_S = 60  # starting the browser (a cold machine, a slow disk)
EXPORT_TIMEOUT_S = 120  # one chart (kaleido's own limit per image is 90 s)


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
    from ..common import CORPUS_TITLES
    from ..sources import configured_data_path

    parts = []
    for name in corpora:
        path = configured_data_path(name)
        title = CORPUS_TITLES.get(name, name)
        parts.append(f"{title} (built-in demo corpus)" if path is None else f"{title} ({path.name})")
    return "Data: " + "; ".join(parts) + "." if parts else ""


def corpora_of_chart(key: str) -> list[str]:
    """The corpora a chart of the analysis pages draws, from its key ('codraw_…', 'gos_…', 'overview_…')."""
    from ..common import CORPUS_NAMES

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


class ChartBrowser:
    """One kaleido browser for every export of the process, in a thread with its own event loop.

    Exports are serialised (a lock): kaleido's renderer is one tab, and Streamlit calls from a thread per
    session. ``starts`` counts the browsers started, so that tests and benchmarks can see the reuse."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._thread: Optional[threading.Thread] = None
        self._kaleido: Any = None
        self.starts = 0

    def render(self, figure: Any, opts: dict) -> bytes:
        """The bytes kaleido makes of a plotly figure (or its dict) with ``opts`` (format, width, height, scale)."""
        with self._lock:
            if self._kaleido is None:
                self._start()
            loop = self._loop
            assert loop is not None and self._kaleido is not None  # _start raised otherwise
            future = asyncio.run_coroutine_threadsafe(self._kaleido.calc_fig(figure, opts=opts), loop)
            try:
                return future.result(timeout=EXPORT_TIMEOUT_S)
            except BaseException:
                future.cancel()
                self._stop()  # a browser that failed once may be wedged: the next export starts a fresh one
                raise

    def close(self) -> None:
        """Close the browser (a later export starts a new one)."""
        with self._lock:
            self._stop()

    def _start(self) -> None:
        import kaleido

        async def opened():
            # MathJax off: the charts use none, and kaleido would otherwise fetch it from a CDN on each start.
            browser = kaleido.Kaleido(n=1, mathjax=False)
            await browser.__aenter__()
            return browser

        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="chart-export-browser", daemon=True)
        self._thread.start()
        try:
            self._kaleido = asyncio.run_coroutine_threadsafe(opened(), self._loop).result(timeout=START_TIMEOUT_S)
        except BaseException:
            self._stop()
            raise
        self.starts += 1

    def _stop(self) -> None:
        loop, thread, browser = self._loop, self._thread, self._kaleido
        self._loop = self._thread = self._kaleido = None
        if loop is None:
            return
        if browser is not None:
            try:
                asyncio.run_coroutine_threadsafe(browser.__aexit__(None, None, None), loop).result(timeout=15)
            except Exception:  # noqa: BLE001 - closing a broken browser: its process goes with the thread's loop
                pass
        loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(timeout=5)
        if not loop.is_running():
            loop.close()


_browser = ChartBrowser()
atexit.register(_browser.close)


def chart_browser() -> ChartBrowser:
    """The process's one export browser."""
    return _browser


def close_browser() -> None:
    """Close the export browser now (it is closed at exit anyway)."""
    _browser.close()


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

    try:
        framed = _with_caption(figure, caption, source, width, height)
        return _browser.render(framed,
                               dict(format=fmt, width=width, height=int(framed.layout.height), scale=1))
    except Exception as exc:  # noqa: BLE001 - kaleido raises many kinds; the UI shows one line
        raise FigureExportError(f"static export failed: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from exc
