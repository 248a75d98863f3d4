"""Import the libraries the app's pages need on a background thread as the server starts, before the first
session asks for a page.

Why: Streamlit runs a page's script in the server process, so the first page after a restart used to pay for
importing pandas, numpy and pyarrow (0.4 s on an idle machine, 1.5–2 s on a busy one) before it could show
anything, on top of what the blank page pays. A server is started well before its first visitor (and even a
visitor waiting for it spends the first second fetching Streamlit's scripts), so ``server.py`` starts these
imports with the server. Only third-party libraries are listed: none of them imports the app's modules, so a
page importing one of them meanwhile just waits for the same module's import lock, never for a cycle of them.
"""
from __future__ import annotations

import importlib
import inspect
import threading

# What every page beyond a blank one imports (the corpora's frames are pandas frames read from Parquet), and
# Streamlit's list of Material icon names, read once to check the navigation's page icons.
MODULES = ("numpy", "pyarrow", "pyarrow.parquet", "pandas", "PIL.Image", "streamlit.material_icon_names")


def _import_all(modules: tuple[str, ...]) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a page importing it reports the problem where it matters
            pass
    # The first element a process shows makes Streamlit look at its call stack (``inspect.stack()``, to
    # warn when it is not run by ``streamlit run``), and the first such look maps every loaded module to
    # its file: 0.1–0.2 s with pandas loaded. Mapping them here spares the first page that.
    inspect.getmodule(_import_all.__code__)  # a code object: a function would be looked up by its __module__


def start(modules: tuple[str, ...] = MODULES) -> threading.Thread:
    """Start importing ``modules`` on a daemon thread (it never delays the server's exit); returns the thread."""
    thread = threading.Thread(target=_import_all, args=(modules,), name="warm-imports", daemon=True)
    thread.start()
    return thread
