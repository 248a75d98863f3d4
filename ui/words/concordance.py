"""The concordance view (Search and Words pages) and the Replay's "next hit" control.

Lines are drawn as HTML, aligned on the match: each whole line is one link that opens the replay at its
step, in the same tab, with the match highlighted. The link carries the hit list's definition (``kwic``:
query, sort keys and filters, URL-encoded) and the line's number (``hit``), so that the Replay can walk the
list (``next_hit_control``) without going back; nothing else needs to be remembered between pages.
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Optional
from urllib.parse import parse_qsl, urlencode

import numpy as np
import streamlit as st

from data_access.exports import UNICODE_MARK, latex_escape
from data_access.links import parse_positive_int
from data_access.search import MODES, default_whole_word, split_words
from data_access.search import PAGE_SIZE as PAGE_SIZE  # hits per page, for the Search page
from data_access.words import concordance
from data_access.words.subcorpus import Filters
from ui.assets import asset_text
from ui.shell.url_state import query_param, served, url_choice
from ui.words import index as ui_words

KWIC_PARAM, HIT_PARAM = "kwic", "hit"
PAGE_LINES = 100
NONE = "—"

STYLE = f"<style>{asset_text('concordance.css')}</style>"


@dataclass(frozen=True)
class HitList:
    """What defines a concordance: the query (with the Search page's mode and flags), the sort keys and the
    sub-corpus."""

    query: str
    keys: tuple[str, ...]
    filters: Filters
    mode: str = "words"
    case_sensitive: bool = False
    whole_word: bool = True

    @property
    def by_words(self) -> bool:
        """Whether the hits are the occurrences of one word or phrase as the tokenisation counts them (else: the
        search's matches, e.g. of a regular expression, each widened to the words it touches)."""
        return self.mode == "words" and self.whole_word and not self.case_sensitive and len(split_words(self.query)) == 1

    def encode(self) -> str:
        params = {"q": self.query, "s": ",".join(self.keys), "m": None if self.mode == "words" else self.mode,
                  "c": "1" if self.case_sensitive else None,
                  "w": None if self.whole_word == default_whole_word(self.mode) else ("1" if self.whole_word else "0"),
                  **ui_words.filter_params(self.filters)}
        return urlencode({k: v for k, v in params.items() if v is not None})

    @classmethod
    def decode(cls, text: str) -> Optional["HitList"]:
        params = dict(parse_qsl(text or ""))
        if not params.get("q"):
            return None
        keys = tuple(k for k in params.get("s", "").split(",") if k in concordance.SORT_KEYS)
        mode = params["m"] if params.get("m") in MODES else "words"
        whole = {"1": True, "0": False}.get(params.get("w", ""), default_whole_word(mode))
        return cls(params["q"], keys, ui_words.filters_from_params(params), mode, params.get("c") == "1", whole)


def hits(hit_list: HitList) -> concordance.Hits | str:
    """The sorted hits (shared, recomputed only for a new definition), or the search's message for a query
    that cannot be searched."""
    corpus = ui_words.word_corpus()
    return _hits(hit_list.encode(), ui_words.mask(hit_list.filters), id(corpus))


@st.cache_resource(show_spinner=False, max_entries=16)  # a list of every "the" in ten times CoDraw is 12 MB
def _hits(spec: str, messages, corpus_id: int) -> concordance.Hits | str:
    """Keyed by the definition, the messages selected (so a code filter follows the coding store) and the
    index's identity."""
    from ui import cached

    hit_list = HitList.decode(spec)
    if hit_list is None:  # cannot happen: the spec was encoded from a hit list
        return concordance.Hits(np.zeros(0, np.int64), 1)

    index = ui_words.word_corpus().index
    if hit_list.by_words:
        return concordance.concordance(index, split_words(hit_list.query)[0], messages, hit_list.keys)
    corpora = tuple(hit_list.filters.corpora) or tuple(cached.available_corpora())
    result = cached.search(hit_list.query, hit_list.mode, hit_list.case_sensitive, hit_list.whole_word, corpora, messages)
    if isinstance(result, str):
        return result
    rows, starts, ends = cached.search_index().match_spans(result.query, result.rows)
    return concordance.sort_hits(index, concordance.from_spans(index, rows, starts, ends), hit_list.keys)


def sort_widgets(key: str, container=None) -> tuple[str, ...]:
    """Three sort keys (AntConc's KWIC sort), each kept in the URL (``s1 s2 s3``)."""
    box = container or st
    columns = box.columns(3)
    options = [NONE, *concordance.SORT_KEYS]
    labels = {"L1": "1st word left", "L2": "2nd word left", "L3": "3rd word left", "R1": "1st word right",
              "R2": "2nd word right", "R3": "3rd word right", NONE: "no further key"}
    keys = []
    for n, (column, default) in enumerate(zip(columns, concordance.DEFAULT_SORT), start=1):
        keys.append(url_choice("selectbox", f"Sort {n}", options, f"s{n}", key=f"{key}_s{n}", default=default,
                               container=column, format_func=labels.get))
    return tuple(k for k in keys if k != NONE)


def lines_html(frame, hit_list: HitList, total: int) -> str:
    """The KWIC lines as HTML: every string escaped, each line one same-tab link to the replay."""
    spec = hit_list.encode()
    parts = [STYLE, f'<div class="vgd-kwic" data-hits="{int(total)}">']
    for row in frame.itertuples(index=False):
        link = served(f"{row.link}&{urlencode({KWIC_PARAM: spec, HIT_PARAM: int(row.hit) + 1})}")
        where = f"{row.corpus} {row.dialog_id} · {row.role}"
        parts.append(
            f'<a class="vgd-kwic-line" href="{html.escape(link)}" target="_self" data-hit="{int(row.hit) + 1}">'
            f'<span class="vgd-where" title="{html.escape(where)}">{html.escape(where)}</span>'
            f'<span class="vgd-left"><span>{html.escape(row.left)}</span></span>'
            f'<span class="vgd-match">{html.escape(row.match)}</span>'
            f'<span class="vgd-right">{html.escape(row.right)}</span></a>')
    parts.append("</div>")
    return "".join(parts)


def concordance_latex(frame, caption: str) -> str:
    """The concordance as a booktabs LaTeX table: left context right-aligned, the match in bold, the right
    context left-aligned (needs ``\\usepackage{booktabs}``)."""
    body = [f"{latex_escape(r.left)} & \\textbf{{{latex_escape(r.match)}}} & {latex_escape(r.right)} & "
            f"{latex_escape(f'{r.corpus} {r.dialog_id}')} \\\\" for r in frame.itertuples(index=False)]
    return "\n".join([r"% \usepackage{booktabs}", r"\begin{table}[t]", r"\centering", r"\small",
                      r"\caption{" + latex_escape(caption) + "}", UNICODE_MARK, r"\begin{tabular}{rcll}", r"\toprule",
                      r"Left & Match & Right & Dialog \\", r"\midrule", *body, r"\bottomrule", r"\end{tabular}",
                      r"\end{table}", ""])


def concordance_view(hit_list: HitList, key: str, page_param: str = "page", searched: Optional[int] = None) -> int:
    """The sorted concordance of ``hit_list``, page by page, with its exports; returns the number of hits.
    ``searched``: how many messages the search above it counts (the Search page), said beside the lines' own count
    where the two differ."""
    from ui.widgets import download_buttons, md_escape

    corpus = ui_words.word_corpus()
    found = hits(hit_list)
    if isinstance(found, str):
        st.warning(md_escape(found), icon="⚠️")
        return 0
    total = len(found)
    if total == 0:
        st.caption("No occurrence of these words in this sub-corpus (words as the tokenisation counts them: "
                   "see the Words page).")
        return 0
    st.caption(md_escape(lines_count(total, concordance.hit_messages(corpus.index, found), searched)))
    pages = max(1, -(-total // PAGE_LINES))
    page = 1
    if pages > 1:
        page = int(url_choice("selectbox", f"Lines (of {total:,})", [str(p) for p in range(1, pages + 1)], page_param,
                              key=f"{key}_page", default="1",
                              format_func=lambda p: f"{(int(p) - 1) * PAGE_LINES + 1:,}–{min(int(p) * PAGE_LINES, total):,}"))
    frame = concordance.lines(corpus.index, found, (page - 1) * PAGE_LINES, PAGE_LINES)
    st.html(lines_html(frame, hit_list, total))
    every = lambda: concordance.lines(corpus.index, found).drop(columns=["link"])
    caption = f"Concordance of “{hit_list.query.strip(chr(34))}” ({hit_list.filters.describe()}), sorted by {', '.join(hit_list.keys) or 'position'}."
    buttons = st.container(horizontal=True)
    with buttons:
        download_buttons(every, f"concordance-{key}", f"all {total:,} lines")
        st.download_button("Concordance as a LaTeX table", key=f"{key}_latex", file_name=f"concordance-{key}.tex",
                           mime="application/x-tex", on_click="ignore", icon=":material/table:", type="tertiary",
                           data=lambda: concordance_latex(every().head(500), caption))
    hits_as_slices(corpus.index, found, key)
    return total


def lines_count(lines: int, messages: int, searched: Optional[int] = None) -> str:
    """What the concordance's count is: one line per occurrence, so more lines than messages where a message
    holds the words twice; and, beside a search's count of messages, why the two differ."""
    said = f"{lines:,} lines, one per occurrence, in {messages:,} messages"
    if lines > messages:
        said += f" ({lines - messages:,} more lines than messages: a message with the words twice has two)"
    if searched is not None and searched != messages:
        said += (f"; the search above counts {searched:,} messages: the concordance finds the words as the Words "
                 "page counts them, so a match that is no such word (punctuation, part of a word) has no line")
    return said + "."


def hits_as_slices(index, found: concordance.Hits, key: str) -> None:
    """One click from the hits to their dialogs as a slice, per corpus (a slice is one corpus's dialogs)."""
    from ui.shell.corpus_edge import every_corpus
    from ui.slices.current import make_slice_button

    dialogs = concordance.hit_dialogs(index, found)
    per_corpus = list(dialogs.groupby("corpus", sort=False))
    corpora = {corpus.name: corpus for corpus in every_corpus()}  # the index's rows name their corpus
    with st.container(horizontal=True):
        for name, part in per_corpus:
            corpus = corpora[str(name)]
            title = f" {corpus.title}" if len(per_corpus) > 1 else ""
            make_slice_button(corpus, part["dialog_id"], key=f"{key}_slice_{name}", within_current=False,
                              label=f"Make a slice of the {len(part):,}{title} dialogs of these hits")


def next_hit_control() -> None:
    """On the Replay: when the page was opened from a concordance line, the hit's number and links to the
    previous and the next hit of the same list (same tab)."""
    hit_list = HitList.decode(query_param(KWIC_PARAM) or "")
    number = parse_positive_int(query_param(HIT_PARAM))
    if hit_list is None or number is None:
        return
    found = hits(hit_list)
    if isinstance(found, str) or number > len(found):
        return
    corpus = ui_words.word_corpus()
    spec = hit_list.encode()
    links = []
    for target, label in ((number - 1, "◀ previous hit"), (number + 1, "next hit ▶")):
        if 1 <= target <= len(found):
            line = concordance.lines(corpus.index, found, target - 1, 1).iloc[0]
            href = served(f"{line.link}&{urlencode({KWIC_PARAM: spec, HIT_PARAM: target})}")
            links.append(f'<a href="{html.escape(href)}" target="_self" data-nav="{"next" if target > number else "previous"}">'
                         f"{label}</a>")
    st.html(f'<div class="vgd-hit-nav">Concordance of “{html.escape(hit_list.query.strip(chr(34)))}”: hit {number:,} of {len(found):,} · '
            + " · ".join(links) + "</div>")
