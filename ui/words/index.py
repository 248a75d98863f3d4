"""The Words page's and the Search page's shared pieces: the word index of every loaded corpus (one shared
resource), the sub-corpus filters kept in the URL, and the word lists drawn as tables whose words are links.

Filters live in the URL under a prefix (none for Search and Words, ``b_`` for the Keyness sub-corpus B), so that
every view, and every hit list the Replay walks, is a link."""
from __future__ import annotations

import html
import threading
from typing import Mapping, Optional
from urllib.parse import urlencode

import numpy as np
import pandas as pd
import streamlit as st

from data_access.common import CORPUS_NAMES, CORPUS_TITLES, LoadedCorpus
from data_access.contract import optional, package_of
from data_access.words import collocation, frequency, keyness
from data_access.words.corpus import WordCorpus
from data_access.words.stats import p_text, with_p_text
from data_access.words.subcorpus import BUILD, CR, GOLD, GOS_LOCK, MENTION, Filters
from ui import cached
from ui.assets import asset_text
from ui.shell.corpus_edge import every_corpus
from ui.shell.url_state import corpus_filter, query_param, served, url_choice, url_filter, url_text_input, url_toggle

ANY = "any"
SCORE_RANGES = {ANY: (None, None), "0–2": (0.0, 2.0), "2–3": (2.0, 3.0), "3–4": (3.0, 4.0), "4–5": (4.0, 5.0)}
# the filter's URL parameter (before a prefix) and the Filters field it sets
PARAMS = {"corpora": "in", "roles": "role", "splits": "split", "score": "score", "gos_lock": "lock", "build": "build",
          "cr": "cr", "mention": "mention", "code_label": "code", "code_coder": "coder", "code_book": "book",
          "slice": "slice"}  # sub-corpus A's slice is the URL's slice= (every page's), B's b_slice=


def _round_outcomes(loaded: LoadedCorpus):
    """The played rounds' mismatched locks, where the corpus package offers them (``round_outcomes``)."""
    outcomes = optional(package_of(loaded), "round_outcomes")
    return None if outcomes is None else outcomes(loaded)


def _layer_annotations(name: str):
    result = cached.layer(name)
    return getattr(result, "annotations", None)


def word_corpus() -> WordCorpus:
    """The word index and message facts of every loadable corpus, rows as in the search index."""
    keys = tuple(cached.corpus_key(corpus) for corpus in every_corpus())
    layers = tuple(cached.layer_key(name) for name in ("codraw-icr", "gos-mentions"))
    return _word_corpus(keys, layers)


@st.cache_resource(show_spinner="Indexing words…", max_entries=2)
def _word_corpus(keys: tuple, layers: tuple) -> WordCorpus:
    frame = cached.search_index().frame
    loadable = cached.loadable_corpora()
    dialogs = {corpus.name: cached.dialogs_frame(corpus) for corpus in loadable}
    rounds = {corpus.name: cached.derived(_round_outcomes, corpus) for corpus in loadable
              if optional(corpus.package, "round_outcomes") is not None}
    corpus = WordCorpus.build(frame, dialogs, rounds, _layer_annotations("codraw-icr"), _layer_annotations("gos-mentions"),
                              prepare=False)
    # The word tables now (Search needs no more); the 2- and 3-word tables meanwhile, off the page's thread
    # (NumPy and pandas release the GIL for most of it), so that the Words page finds them ready.
    corpus.index.prepare((1,))
    threading.Thread(target=corpus.index.prepare, args=((2, 3),), name="words-ngrams", daemon=True).start()
    return corpus


def coded_annotations() -> Optional[pd.DataFrame]:
    """The coding store's annotations (read only), or None when the store cannot be opened."""
    from ui.coding.panel import store

    coding = store()
    return None if coding is None else coding.annotations()


def mask(filters: Filters) -> Optional[np.ndarray]:
    """The messages ``filters`` select (None: all); with a slice, only its dialogs' messages."""
    within = slice_messages(filters.slice)[0] if filters.slice else None
    return word_corpus().mask(filters, coded_annotations() if filters.code_label else None, within)


def slice_messages(text: str) -> tuple[np.ndarray, dict[str, tuple[bool, str]]]:
    """The messages (rows of the word index) of the dialogs the slice ``text`` keeps on each corpus (of its moments,
    for a step slice), and per corpus whether it can be used there and what it keeps in words, or why not (that
    corpus's messages are then left out). Made once per script run and slice (the lists, the concordance and the filter's caption all ask)."""
    from ui.slices.current import outcome_of
    from ui.store import run_token

    run = run_token()
    memo = st.session_state.get("_words_slice_messages")
    if run is not None and memo is not None and memo[0] == run and memo[1] == text:
        return memo[2], memo[3]
    frame = cached.search_index().frame
    keep = np.zeros(len(frame), dtype=bool)
    said: dict[str, tuple[bool, str]] = {}
    corpora = frame["corpus"].astype(str).to_numpy()
    for corpus in cached.loadable_corpora():
        outcome = outcome_of(corpus, text)
        if outcome.kept is None:
            said[corpus.name] = (False, outcome.error or "cannot be used")
            continue
        said[corpus.name] = (True, outcome.description)
        if outcome.is_moments:  # a step slice: the messages of its moments only
            from ui.slices.moments import moment_messages

            keep |= moment_messages(corpus, outcome.steps, frame)
            continue
        rows = corpora == corpus.name
        keep[rows] = pd.Index(outcome.kept).get_indexer(frame["dialog_id"].to_numpy()[rows].astype(str)) >= 0
    if run is not None:
        st.session_state["_words_slice_messages"] = (run, text, keep, said)
    return keep, said


# ---------------------------------------------------------------------------------------------- the filters

def filters_from_params(params: Mapping[str, str], prefix: str = "") -> Filters:
    """The filters a URL's parameters name (the same parameters ``filter_widgets`` writes); unknown values are ignored."""
    def value(name: str) -> str:
        return str(params.get(prefix + PARAMS[name]) or "")

    def listed(name: str) -> tuple[str, ...]:
        return tuple(v for v in value(name).split(",") if v)

    low, high = SCORE_RANGES.get(value("score"), (None, None))
    pick = lambda name, options: value(name) if value(name) in options else ""
    return Filters(corpora=tuple(c for c in listed("corpora") if c in CORPUS_NAMES), roles=listed("roles"),
                   splits=listed("splits"), score_min=low, score_max=high, gos_lock=pick("gos_lock", GOS_LOCK),
                   build=pick("build", BUILD), cr=pick("cr", CR), mention=pick("mention", MENTION),
                   code_label=value("code_label"), code_coder=value("code_coder"), code_book=value("code_book"),
                   slice=value("slice"))


def filter_params(filters: Filters, prefix: str = "") -> dict[str, str]:
    """The URL parameters of ``filters`` (the inverse of ``filters_from_params``; empty filters are left out)."""
    score = next((name for name, (low, high) in SCORE_RANGES.items()
                  if (low, high) == (filters.score_min, filters.score_max) and name != ANY), "")
    values = {"corpora": ",".join(filters.corpora), "roles": ",".join(filters.roles), "splits": ",".join(filters.splits),
              "score": score, "gos_lock": filters.gos_lock, "build": filters.build, "cr": filters.cr,
              "mention": filters.mention, "code_label": filters.code_label, "code_coder": filters.code_coder,
              "code_book": filters.code_book, "slice": filters.slice}
    return {prefix + PARAMS[name]: v for name, v in values.items() if v}


def _options(frame: pd.DataFrame, column: str) -> list[str]:
    return sorted(str(v) for v in frame[column].dropna().unique() if str(v))


def filters_named(prefix: str = "", with_corpora: bool = True) -> bool:
    """Whether the URL sets any sub-corpus filter (under ``prefix``)."""
    return any(query_param(prefix + param) for name, param in PARAMS.items() if with_corpora or name != "corpora")


def optional_filter_widgets(key: str) -> Filters:
    """The sub-corpus filters behind a switch (``filter=1``), for a page that mostly runs without them (Search):
    until they are asked for, or a link sets one, no filter widget is drawn and no word index is built."""
    if not filters_named("", with_corpora=False):
        wanted = url_toggle("Filter by role, split, outcome, published labels or your codes", "filter", key=f"{key}_filter")
        if not wanted:
            return Filters()
    return filter_widgets("", key, with_corpora=False, expanded=True)


def filter_widgets(prefix: str = "", key: str = "words", with_corpora: bool = True, title: str = "Filters",
                   expanded: bool = False) -> Filters:
    """Every sub-corpus filter, each kept in the URL (under ``prefix``), in an expander; returns the Filters."""
    facts = word_corpus().facts
    corpora = [c for c in CORPUS_NAMES if c in set(facts["corpus"])]
    with st.expander(title, expanded=expanded or bool(query_param(prefix + "slice")), icon=":material/filter_alt:"):
        sliced, slice_said = slice_widget(prefix, key)
        top = st.columns(3)
        chosen = tuple(corpora)
        # No pill on means all: one click keeps only the corpus, role or split clicked.
        if with_corpora:
            chosen = corpus_filter(corpora, prefix + "in", key=f"{key}_in", container=top[0])
        if sliced:
            slice_note(slice_said, sliced, chosen)
        roles = url_filter("Speaker role", _options(facts[facts["corpus"].isin(chosen)], "role"), prefix + "role",
                           key=f"{key}_role", container=top[1], start_empty=True)
        splits = url_filter("Split", _options(facts[facts["corpus"].isin(chosen)], "split"), prefix + "split",
                            key=f"{key}_split", container=top[2], start_empty=True)
        outcome = st.columns(3)
        score = url_choice("selectbox", "CoDraw final score", list(SCORE_RANGES), prefix + "score", key=f"{key}_score",
                           default=ANY, container=outcome[0], help="Dialogs whose final score (0–5) lies in the range.")
        lock = url_choice("segmented_control", "Game Of Sorts round", [ANY, *GOS_LOCK], prefix + "lock", key=f"{key}_lock",
                          default=ANY, container=outcome[1], format_func=lambda v: {"with": "with a mismatched lock",
                                                                                     "without": "no mismatch"}.get(v, v))
        build = url_choice("segmented_control", "Minecraft build", [ANY, *BUILD], prefix + "build", key=f"{key}_build",
                           default=ANY, container=outcome[2])
        labels = st.columns(3)
        cr = url_choice("segmented_control", "CoDraw round (published CR layer)", [ANY, *CR], prefix + "cr",
                        key=f"{key}_cr", default=ANY, container=labels[0])
        mention = url_choice("segmented_control", "Game Of Sorts mention (published layer)", [ANY, *MENTION],
                             prefix + "mention", key=f"{key}_mention", default=ANY, container=labels[1],
                             format_func=lambda v: {"one": "of one image", "several": "of several"}.get(v, v))
        code_label, coder = _code_widgets(prefix, key, labels[2])
    low, high = SCORE_RANGES[score]
    def value(v):
        return "" if v == ANY else v
    names = tuple(corpora)
    return Filters(corpora=() if set(chosen) == set(names) else tuple(chosen),
                   roles=() if len(roles) == len(_options(facts[facts["corpus"].isin(chosen)], "role")) else tuple(roles),
                   splits=() if len(splits) == len(_options(facts[facts["corpus"].isin(chosen)], "split")) else tuple(splits),
                   score_min=low, score_max=high, gos_lock=value(lock), build=value(build), cr=value(cr),
                   mention=value(mention), code_label=code_label, code_coder=coder, slice=sliced)


def slice_widget(prefix: str, key: str):
    """The sub-corpus's slice (``slice=`` for A, the page's slice; ``b_slice=`` for B), kept in the URL; the slice's
    canonical text, or "" for none or one that does not parse (said), and the place under it for ``slice_note``."""
    from data_access.slices import SliceError
    from data_access.slices.definitions import canonical_definition
    from ui.widgets import md_escape

    typed = url_text_input("Slice: only the messages of these dialogs (of these moments)", prefix + "slice",
                           key=f"{key}_slice", placeholder="e.g. crs > 0 and peek_gain < 0, or split = train",
                           help="A slice (docs/slices.md), as on the Slices page; a step slice keeps the messages of "
                                "its moments (steps(role = Architect and next(1, removals > 0))); a saved slice by "
                                "its id (@12); a corpus the slice cannot be used on is left out of the sub-corpus.")
    said = st.empty()
    if not typed.strip():
        return "", said
    try:
        return canonical_definition(typed), said
    except SliceError as exc:
        said.warning(f"Not a slice, so no slice is applied: {md_escape(exc)}.", icon="⚠️")
        return "", said


def slice_note(place, text: str, corpora) -> None:
    """Under the slice, what it keeps on each of ``corpora`` (the sub-corpus's), and in one line those of them it
    cannot be used on, whose messages are left out (why, with each corpus's features, in the line's help: a
    slice of CoDraw's features named every feature of the other corpora, twice on the Keyness view)."""
    from ui.widgets import md_escape

    said = slice_messages(text)[1]
    kept = [why for corpus, (usable, why) in said.items() if usable and corpus in corpora]
    refused = {corpus: why for corpus, (usable, why) in said.items() if not usable and corpus in corpora}
    if refused:
        names = " and ".join(CORPUS_TITLES.get(corpus, corpus) for corpus in refused)
        kept.append(f"it cannot be used on {names}, so {'its' if len(refused) == 1 else 'their'} messages are left "
                    "out (the ? beside this line says why)")
    place.caption(md_escape("; ".join(kept)), help="\n\n".join(md_escape(why) for why in refused.values()) or None)


def _code_widgets(prefix: str, key: str, container) -> tuple[str, str]:
    """Label and coder of the user's own coding (read from the coding store)."""
    frame = coded_annotations()
    labels = [] if frame is None or frame.empty else _options(frame[frame["kind"] == "label"], "label")
    coders = [] if frame is None or frame.empty else _options(frame[frame["layer"] != GOLD], "coder")
    with container:
        label = url_choice("selectbox", "Your codes: label", ["", *labels], prefix + "code", key=f"{key}_code", default="",
                           format_func=lambda v: v or "any message", help="Messages in a dialog, round, turn or span "
                           "coded with this label (Coding queue, Replay).")
        coder = url_choice("selectbox", "by", ["", GOLD, *coders], prefix + "coder", key=f"{key}_coder", default="",
                           format_func=lambda v: {"": "any coder", GOLD: "gold (adjudicated)"}.get(v, v),
                           disabled=not label)
    return label, coder if label else ""


# ---------------------------------------------------------------------------------------------- word lists

TABLE_STYLE = f"<style>{asset_text('words.css')}</style>"


def word_link(page: str, params: Mapping[str, str]) -> str:
    """A same-tab link to ``page`` with ``params`` (prefix-aware)."""
    return served(f"/{page}?{urlencode({k: v for k, v in params.items() if v not in (None, '')})}")


def word_table_html(frame: pd.DataFrame, links: list[str], formats: Mapping[str, str], key: str) -> str:
    """``frame`` as an HTML table whose ``word`` column links to ``links`` (one per row, same tab)."""
    head = "".join(f"<th>{html.escape(str(c).replace('_', ' '))}</th>" for c in frame.columns)
    rows = []
    for link, row in zip(links, frame.itertuples(index=False)):
        cells = []
        for column, value in zip(frame.columns, row):
            if column == "word":
                cells.append(f'<td><a href="{html.escape(link)}" target="_self" data-word="{html.escape(str(value))}">'
                             f"{html.escape(str(value))}</a></td>")
            elif isinstance(value, (bool, np.bool_)):
                cells.append(f"<td>{'yes' if value else 'no'}</td>")
            elif isinstance(value, (int, np.integer)):
                cells.append(f'<td class="num">{int(value):,}</td>')
            elif column == "p" and isinstance(value, (float, np.floating)) and "g2" in frame.columns:
                cells.append(f'<td class="num">{html.escape(p_text(float(value), float(row.g2)))}</td>')
            elif isinstance(value, (float, np.floating)):
                cells.append(f'<td class="num">{format(float(value), formats.get(column, ",.2f"))}</td>')
            else:
                cells.append(f"<td>{html.escape(str(value))}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (TABLE_STYLE + f'<div style="overflow-x:auto"><table class="vgd-words" data-table="{html.escape(key)}">'
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>")


def exports(frame: pd.DataFrame, stem: str, caption: str) -> None:
    """CSV (and Parquet) and a booktabs LaTeX table of a word list."""
    from ui.share.downloads import latex_table_download
    from ui.widgets import download_buttons

    # p as shown: an underflowed p is its bound ("< 1e-435"), not 0, in the files too
    download_buttons(with_p_text(frame, digits=6), stem, "list")
    latex_table_download(with_p_text(frame), caption, stem)


# ---------------------------------------------------------------------------------------------- the statistics
# (the Words page lays them out; these call data_access.words on the shared index)

COLLOCATION_SORTS = collocation.SORTS


def counts(messages: Optional[np.ndarray], n: int = 1) -> frequency.Counts:
    """Occurrences and dispersion of every n-gram in the selected messages."""
    return frequency.count_items(word_corpus().index, messages, n)


def frequency_table(messages: Optional[np.ndarray], n: int, top: int, found: frequency.Counts) -> pd.DataFrame:
    return frequency.frequency_list(word_corpus().index, messages, n, top=top, counts=found)


def collocation_table(node: str, messages: Optional[np.ndarray], window: int, min_count: int, sort: str) -> pd.DataFrame:
    return collocation.collocates(word_corpus().index, node, messages, window, min_count, top=200, sort=sort)


def keyness_table(first: frequency.Counts, second: frequency.Counts, n: int, min_count: int, top: int) -> pd.DataFrame:
    return keyness.keyness(word_corpus().index, None, None, n, min_count, top=top, counts=(first, second))
