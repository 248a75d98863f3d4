"""No PostgreSQL password on any page (issue 26 items 3 and 7): the Data page and the Codebooks caption show
the store's URL redacted, and a malformed URL (an unclosed IPv6 bracket, a bad percent-escape) is one clear
error on each store page, never a traceback."""
from __future__ import annotations

import re

import pytest

from .conftest import open_page

SECRET = "Zq7pagesecret"
STORE_PAGES = ["pages/codebooks.py", "pages/agreement.py", "pages/coding_queue.py", "pages/notes.py"]


def _everything(at) -> str:
    texts = [str(e.value) for kind in ("error", "warning", "info", "success", "caption", "markdown", "text")
             for e in getattr(at, kind)]
    return re.sub(r"\\(.)", r"\1", "\n".join(texts))


def test_the_codebooks_caption_and_the_data_page_hide_a_password_parameter(postgres_cluster, monkeypatch):
    url = postgres_cluster.new_database() + f"?password={SECRET}"  # trust auth: never asked for, so it connects
    monkeypatch.setenv("DIALOGUE_NOTES_DB", url)
    codebooks = open_page("pages/codebooks.py", coder="ann")
    shown = _everything(codebooks)
    assert "?password=***" in shown and SECRET not in shown
    data = open_page("pages/data.py")
    assert "password=***" in _everything(data) and SECRET not in _everything(data)


@pytest.mark.parametrize("target", [
    f"postgresql://ann:{SECRET}@[::1/notes",
    f"postgresql://ann:{SECRET}%zz@127.0.0.1:9/notes",
    f"postgresql://ann:pa?ss#{SECRET}@127.0.0.1:9/notes",
])
def test_a_malformed_or_unreachable_url_is_one_clear_error_on_every_store_page(monkeypatch, target):
    monkeypatch.setenv("DIALOGUE_NOTES_DB", target)
    for page in [*STORE_PAGES, "pages/data.py"]:
        at = open_page(page, coder="ann")  # raises nothing
        assert SECRET not in _everything(at), page
        if page != "pages/data.py":
            assert len(at.error) == 1 and "unavailable" in at.error[0].value, (page, [e.value for e in at.error])
