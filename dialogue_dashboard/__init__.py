"""The installed dashboard: the ``dialogue-dashboard`` command (``cli.py``) and, in a wheel, the app's own
files (``app.py``, ``server.py``, ``pages/`` and Streamlit's configuration under ``app/``). In a checkout
the app's files are the checkout's own, beside this package."""
from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def app_folder() -> Path:
    """Where ``app.py``, ``server.py``, ``pages/`` and ``.streamlit/`` are: ``app/`` in an installed wheel,
    the checkout's root otherwise."""
    installed = PACKAGE / "app"
    return installed if (installed / "app.py").is_file() else PACKAGE.parent
