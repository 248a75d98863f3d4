"""The documentation holds together: every relative link in README.md and docs/ names a file of the repository,
every ``#anchor`` a heading of the file it points into (GitHub's anchors), and the README stays a short guide."""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
README_MAX_LINES = 250
_MARKDOWN = MarkdownIt("commonmark").enable("table")  # GitHub's tables hold links too


def _tokens(text: str):
    """Every token of the document, inline children included (code blocks are single tokens, so a ``# comment``
    or a ``[x](y)`` in a code block is neither a heading nor a link)."""
    for token in _MARKDOWN.parse(text):
        yield token
        yield from token.children or ()


def anchors(text: str) -> set[str]:
    """The anchors GitHub gives the document's headings: the heading's text lower-cased, everything but letters,
    digits, ``_``, ``-`` and spaces dropped, spaces made ``-``; a repeated anchor gets ``-1``, ``-2``, …"""
    tokens = _MARKDOWN.parse(text)
    seen: Counter[str] = Counter()
    found = set()
    for opening, inline in zip(tokens, tokens[1:]):
        if opening.type != "heading_open":
            continue
        words = "".join(child.content for child in inline.children or () if child.type in ("text", "code_inline"))
        slug = re.sub(r"[^\w\- ]", "", words.strip().lower()).replace(" ", "-")
        found.add(slug if not seen[slug] else f"{slug}-{seen[slug]}")
        seen[slug] += 1
    return found


def links(text: str) -> list[str]:
    return [token.attrs["href"] for token in _tokens(text) if token.type == "link_open"]


def broken_links(document: Path, text: str | None = None) -> list[str]:
    """The relative links of ``document`` whose file or anchor does not exist (absolute URLs are not checked)."""
    text = document.read_text(encoding="utf-8") if text is None else text
    broken = []
    for href in links(text):
        parts = urlsplit(href)
        if parts.scheme or parts.netloc:
            continue
        target = (document.parent / unquote(parts.path)).resolve() if parts.path else document
        if not target.is_relative_to(ROOT) or not target.exists():
            broken.append(f"{href}: no such file")
        elif parts.fragment:
            if target.suffix != ".md" or unquote(parts.fragment) not in anchors(target.read_text(encoding="utf-8")):
                broken.append(f"{href}: no heading #{parts.fragment} in {target.relative_to(ROOT)}")
    return broken


@pytest.mark.parametrize("document", DOCUMENTS, ids=[str(d.relative_to(ROOT)) for d in DOCUMENTS])
def test_every_relative_link_and_anchor_resolves(document):
    assert not broken_links(document)


def test_the_readme_links_into_docs_and_every_doc_is_linked_from_somewhere():
    readme = links((ROOT / "README.md").read_text(encoding="utf-8"))
    assert any(href.startswith("docs/") for href in readme)
    linked = {(document.parent / urlsplit(href).path).resolve() for document in DOCUMENTS
              for href in links(document.read_text(encoding="utf-8")) if not urlsplit(href).scheme}
    assert ROOT / "docs" in linked or all(d in linked for d in DOCUMENTS[1:])  # the folder, or each file


def test_the_link_check_sees_a_missing_file_and_a_missing_anchor():
    readme = ROOT / "README.md"
    assert broken_links(readme, "[a](docs/no-such-file.md) [b](docs/metrics.md#no-such-heading) [c](#your-data)") == [
        "docs/no-such-file.md: no such file", "docs/metrics.md#no-such-heading: no heading #no-such-heading in docs/metrics.md"]
    assert broken_links(readme, "```\n[in code](nowhere.md)\n```\n[web](https://example.org/x#y)") == []


def test_anchors_are_githubs():
    text = "# Coding: codebooks, coders, agreement\n## What `make run` serves\n## Tests\n## Tests\n```\n# not a heading\n```\n"
    assert anchors(text) == {"coding-codebooks-coders-agreement", "what-make-run-serves", "tests", "tests-1"}


def test_the_readme_is_a_short_guide():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; move the detail into docs/"
