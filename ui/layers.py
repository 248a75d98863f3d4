"""Page sections for the published annotation layers (``data_access.layers``): the A Game Of Sorts mentions
on the replay, in search and on the outcomes page; CoDraw CRs on the replay, in Browse and on the scores
page; the Data page's layer report with downloads in the published layouts. Pages call one function each.

Every text from a layer or corpus is escaped before it reaches HTML or markdown.
"""
from __future__ import annotations

import dataclasses
import hashlib
import html
import json
from pathlib import Path
from typing import Optional

import pandas as pd
import streamlit as st

from data_access.codraw import icr_analysis
from data_access.corpora import cached_summary_if_any
from data_access.corpus import Corpus
from data_access.gos import mentions_analysis
from data_access.gos.mentions_view import SPAN_COLOURS, mention_step
from data_access.layers import LAYER_CORPUS, LAYER_FILES, LAYER_NAMES, LAYER_TITLES
from data_access.layers.load import LAYERS_VARIABLE
from ui import cached
from ui.corpus_edge import layer_corpus_of
from ui.url_state import served_links, url_toggle
from ui.widgets import md_code, md_escape, skipped_count


def _is_loaded(layer, corpus) -> bool:
    return True


def _ready(name: str) -> bool:
    """Whether the layer is configured and loaded, without copying it out of the cache (light reruns)."""
    return cached.layer_derived(_is_loaded, name) is True


def _layer(name: str, explain: bool = False):
    """The loaded layer, or None (after a note when ``explain``: not configured, or failed to load)."""
    result = cached.layer(name)
    if result is None:
        if explain:
            st.caption(f"No published {LAYER_TITLES[name]} layer: {md_escape(cached.layer_source(name).reason)}.")
        return None
    if isinstance(result, cached.LoadFailure):
        if explain:
            st.warning(f"The published layer could not be loaded: {md_escape(result.message)}", icon="⚠️")
        return None
    return result


# ----------------------------------------------------------------------------------------------------
# A Game Of Sorts replay

def _highlighted_html(step) -> str:
    """The message with each mention as a coloured, numbered span, then the numbered list of mentions
    with the images they name (all text escaped)."""
    parts = []
    for piece, index in step.pieces:
        text = html.escape(piece)
        if index is None:
            parts.append(text)
        else:
            colour = SPAN_COLOURS[index % len(SPAN_COLOURS)]
            parts.append(f'<mark style="background:{colour};padding:0 2px;border-radius:3px">{text}'
                         f'<sup style="font-size:0.7em;color:#374151">{index + 1}</sup></mark>')
    items = []
    for row in step.mentions.itertuples(index=False):
        colour = SPAN_COLOURS[(row[0] - 1) % len(SPAN_COLOURS)]
        fits = "" if row[4] else " · <em>offsets do not fit the message; not highlighted</em>"
        items.append(f'<li><span style="background:{colour};padding:0 3px;border-radius:3px">{html.escape(str(row[1]))}</span>'
                     f" → {html.escape(str(row[2]))} ({html.escape(str(row[3]))}){fits}</li>")
    return ('<div class="layer-mentions" style="font-family:sans-serif;padding:0.4rem 0.7rem;border-left:3px solid #F59E0B;'
            'background:#FFFBEB"><div style="font-size:1.05rem;line-height:1.9">' + "".join(parts) + "</div>"
            '<ol style="margin:0.3rem 0 0 0;font-size:0.9rem">' + "".join(items) + "</ol></div>")


def gos_replay_mentions(corpus: Corpus, view) -> tuple:
    """Under the step's event: the message with its published mentions highlighted and listed; returns the
    boards to show (the view's own, or re-rendered with the mentioned images framed on both boards)."""
    if not _ready("gos-mentions"):
        return view.boards
    turns = cached.layer_derived(mentions_analysis.round_mention_turns, "gos-mentions", view.dialog_id, view.round) or {}
    show = st.toggle("Published mentions", value=True, key="gos_layer_mentions",
                     help="Referring expressions annotated by Willemsen et al. (SIGDIAL 2023): spans of each message "
                          "linked to the images they name.")
    if not show:
        return view.boards
    if not turns:
        st.caption("No message of this round has annotated mentions.")
        return view.boards
    listed = ", ".join(str(t) for t in sorted(turns))
    ranks = tuple(zip(view.ranks["image_id"], view.ranks["rank"])) if "image_id" in view.ranks else ()
    players = tuple((board.username, board.pending) for board in view.boards)
    step = cached.layer_derived(mention_step, "gos-mentions", view.dialog_id, view.round, view.step, ranks, players)
    if step is None or not step.text:
        st.caption(f"Steps of this round whose message has annotated mentions: {listed}.")
        return view.boards
    st.html(_highlighted_html(step))
    note = f" {step.out_of_range} mention(s) have offsets that do not fit the message and are not highlighted." \
        if step.out_of_range else ""
    st.caption(f"Mentions of the published layer; the images they name are framed in amber on both boards.{note} "
               f"Steps of this round with mentions: {listed}.")
    pictures = dict(step.boards)
    return tuple(dataclasses.replace(board, png=pictures[board.username]) if board.username in pictures else board
                 for board in view.boards)


# ----------------------------------------------------------------------------------------------------
# CoDraw replay and Browse

def codraw_replay_crs(dialog_id: str, turn: int) -> None:
    """The published CR annotation of this round's Drawer message, and the dialog's CR rounds."""
    if not _ready("codraw-icr"):
        return
    rows = cached.layer_derived(icr_analysis.dialog_crs, "codraw-icr", dialog_id)
    if rows is None or rows.empty:
        st.caption("The published CR layer has no row aligned to this dialog.")
        return
    here = rows[rows["round"] == int(turn)]
    crs = sorted(set(rows.loc[rows["is_cr"], "round"].astype(int)))
    if here["is_cr"].any():
        st.warning(f"Clarification request: the Drawer's message in round {turn} is an instruction CR "
                   "(published annotation).", icon=":material/contact_support:")
    elif not here.empty:
        unsure = " (the annotator could not tell)" if here["impossible"].any() else ""
        st.caption(f"Published CR layer: the Drawer's message in round {turn} is not a CR{unsure}.")
    st.caption("Rounds with a CR: " + (", ".join(map(str, crs)) if crs else "none") +
               f" · rounds annotated: {', '.join(map(str, sorted(set(rows['round'].astype(int)))))}.")


def transcript_marks(corpus: Corpus, dialog_id: str) -> tuple[int, ...]:
    """The steps of a dialog its corpus's published layer marks for a transcript: CoDraw's CR rounds (empty
    when the corpus has no such layer or it is not loaded)."""
    if "codraw-icr" not in corpus.package.LAYERS or not _ready("codraw-icr"):
        return ()
    rows = cached.layer_derived(icr_analysis.dialog_crs, "codraw-icr", dialog_id)
    if rows is None or rows.empty:
        return ()
    return tuple(sorted(set(rows.loc[rows["is_cr"], "round"].astype(int))))


def browse_cr_filter(corpus: Corpus, table: pd.DataFrame) -> pd.DataFrame:
    """CoDraw Browse: a CRs column from the published layer and an "only with a CR" filter (``cr=1``)."""
    if "codraw-icr" not in corpus.package.LAYERS:
        return table
    if not _ready("codraw-icr"):
        return table
    per_dialog = cached.layer_derived(icr_analysis.cr_by_dialog, "codraw-icr")
    counts = per_dialog.set_index("dialog_id")["crs"] if per_dialog is not None else pd.Series(dtype="int64")
    table = table.copy()
    table["CRs"] = table["dialog_id"].map(counts).astype("Int64")
    only = url_toggle("Only dialogs with a CR", "cr", key="browse_only_cr",
                      help="Dialogs with at least one instruction clarification request of the published layer "
                           "(Madureira & Schlangen, 2023) aligned to one of their rounds. The CRs column is empty for "
                           "dialogs with no uniquely aligned row.")
    return table[table["CRs"].fillna(0) > 0] if only else table


# ----------------------------------------------------------------------------------------------------
# Search, analysis pages

def mention_search(query: str, case_sensitive: bool = False) -> None:
    """Search results among the published A Game Of Sorts mentions (all words, or a quoted phrase)."""
    if not query.strip() or not _ready("gos-mentions"):
        return
    hits = cached.layer_derived(mentions_analysis.search_mentions, "gos-mentions", query, case_sensitive)
    if hits is None:
        return
    st.subheader("Mentions (A Game Of Sorts, published layer)")
    if hits.empty:
        st.caption("No annotated mention contains the query.")
        return
    st.caption(f"{len(hits):,} annotated mentions contain the query; each links to its message in the replay.")
    st.dataframe(served_links(hits[["dialog_id", "round", "turn", "text", "referents", "single", "link"]].rename(
        columns={"text": "mention", "turn": "step"}), "link"), hide_index=True, width="stretch",
        column_config={"link": st.column_config.LinkColumn("Replay", display_text="open ▶")})


def gos_mention_counts(charts_module) -> None:
    """Game Of Sorts outcomes: mentions per round number and per criterion (board)."""
    st.header("Mentions (published layer)")
    if not _ready("gos-mentions"):
        _layer("gos-mentions", explain=True)
        return
    from data_access.gos import figures as gos_figures  # the charts only when a page shows them (ui.share imports this module)

    # on the URL's slice when there is one (charts_module.layer_build)
    charts_module.show(charts_module.layer_build(gos_figures.mentions_round_chart, "gos-mentions"))
    table = charts_module.layer_build(mentions_analysis.mentions_per_round, "gos-mentions")
    if table is None or table.empty:
        return
    per_board = mentions_analysis.mentions_per_criterion(table)
    st.dataframe(per_board, hide_index=True, width="stretch",
                 column_config={"criterion": st.column_config.TextColumn("criterion", width="large"),
                                "mentions_per_message": st.column_config.NumberColumn("mentions per message", format="%.2f")})
    st.caption("Per board (its criterion): the plays of it, their messages, annotated mentions (of one image / of a "
               "group) and mentions per message.")
    st.download_button("Download mentions per round (CSV)", data=table.to_csv(index=False), file_name="gos-mentions-per-round.csv",
                       key="gos_mentions_per_round_csv", on_click="ignore")


def codraw_score_by_cr(charts_module, splits: tuple) -> None:
    """CoDraw scores page: final score by presence of a published CR."""
    st.header("Score and clarification requests (published layer)")
    if not _ready("codraw-icr"):
        _layer("codraw-icr", explain=True)
        return
    from data_access.codraw import figures as codraw_figures

    charts_module.show(charts_module.layer_build(codraw_figures.score_by_cr_chart, "codraw-icr", tuple(splits)))


# ----------------------------------------------------------------------------------------------------
# Data page

# A layer's Data-page figures are kept in its corpus's cache entry under a name made of this module's code and
# the layer file's path and version: a restart reads them back instead of linking every layer again.
_CODE = hashlib.sha1(Path(__file__).read_bytes()).hexdigest()[:12]
PROBLEM_ROWS = 1_000  # unmatched messages and skipped lines of a layer kept for the Data page


def _plain(value):
    """A numpy number as the Python number JSON writes."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"not JSON: {type(value).__name__}")


def layer_data_figures(name: str) -> Optional[dict]:
    """What the Data page shows of layer ``name`` (its file, figures, load time, unmatched messages and skipped
    lines, the first ``PROBLEM_ROWS`` of each), read from its corpus's cache entry when computed before; None
    when no layer is configured or it could not be loaded (``cached.layer`` says why)."""
    key = cached.layer_key(name)
    if key is None:
        return None
    loaded = cached.corpus(layer_corpus_of(name))
    if isinstance(loaded, cached.LoadFailure):
        return None
    version = hashlib.sha1(repr((key.file, key.stamp, key.is_demo)).encode()).hexdigest()[:16]

    def compute() -> Optional[dict]:
        result = cached.layer(name)
        if result is None or isinstance(result, cached.LoadFailure):
            return None
        return json.loads(json.dumps({
            "path": result.path, "is_demo": result.is_demo, "figures": result.figures,
            "load_seconds": result.load_seconds, "unmatched": list(result.unmatched[:PROBLEM_ROWS]),
            "skipped": [s.as_dict() for s in result.skipped[:PROBLEM_ROWS]],
            "skipped_text": skipped_count(result.skipped, "line(s) or mention link(s)") if result.skipped else ""},
            default=_plain))

    return cached_summary_if_any(loaded, f"layer-data-{_CODE}-{version}", compute)


def layers_section() -> None:
    """Where each layer comes from, its figures (alignment for CoDraw), load problems and exports; the figures
    from a summary in the corpus's cache entry (no layer is linked again after a restart), the exports made
    when their button is clicked."""
    st.header("Published annotation layers")
    st.caption(f"Set `{LAYERS_VARIABLE}` to a folder holding {', '.join(f'`{f}`' for f in LAYER_FILES.values())} "
               "(their published names); unset, the demo corpora come with generated demo layers.")
    for name in LAYER_NAMES:
        st.subheader(LAYER_TITLES[name])
        source = cached.layer_source(name)
        shown = layer_data_figures(name)
        if shown is None:
            result = cached.layer(name)
            if result is None:
                st.info(f"Not loaded: {md_escape(source.reason)}.")
                continue
            if isinstance(result, cached.LoadFailure):
                st.error(f"Could not be loaded: {md_escape(result.message)}", icon="⚠️")
                continue
            continue  # loaded but not summarisable: nothing the page can show
        st.markdown(f"**Source** ({'generated demo layer' if shown['is_demo'] else 'your data'}), over the "
                    f"{LAYER_CORPUS[name]} corpus: {md_code(shown['path'])}")
        figures = shown["figures"]
        if name == "codraw-icr":
            metrics = st.columns(5)
            metrics[0].metric("Rows", f"{figures['rows']:,}")
            metrics[1].metric("Aligned uniquely", f"{figures['aligned_unique']:,}")
            metrics[2].metric("Aligned ambiguously", f"{figures['aligned_ambiguous']:,}")
            metrics[3].metric("Not aligned", f"{figures['not_aligned']:,}")
            metrics[4].metric("CRs", f"{figures['crs']:,}", f"{figures['crs_aligned']:,} aligned uniquely",
                              delta_color="off", delta_arrow="off")
            st.caption("Rows are aligned to (dialog, round) by their normalised text: the Drawer message plus the Teller "
                       "messages before and after it where the row gives them. Unique = one round matches; ambiguous = "
                       "several (e.g. “ok” with no context given); only unique alignments are shown in the app.")
            splits = pd.DataFrame([{"split": s, **v} for s, v in figures["splits"].items()])
            st.dataframe(splits, hide_index=True, width="content")
        else:
            metrics = st.columns(5)
            metrics[0].metric("Messages", f"{figures['messages']:,}")
            metrics[1].metric("Mentions", f"{figures['mentions']:,}", f"{figures['mentions_single']:,} of one image",
                              delta_color="off", delta_arrow="off")
            metrics[2].metric("Image links", f"{figures['images_linked']:,}")
            metrics[3].metric("Messages not in the corpus", f"{figures['unmatched_messages']:,}")
            metrics[4].metric("Spans out of range", f"{figures['spans_out_of_range']:,}")
            if shown["unmatched"]:
                st.dataframe(pd.DataFrame({"message not in the corpus": shown["unmatched"]}), hide_index=True, width="stretch")
        st.caption(f"Linked in {shown['load_seconds']:.2f} s. Same figures: "
                   f"`python -m data_access layer-summary {name} CORPUS_PATH LAYER_PATH`.")
        if shown["skipped"]:
            st.warning(f"{shown['skipped_text']} could not be used and were left out; everything else loaded.")
            st.dataframe(pd.DataFrame(shown["skipped"]), hide_index=True, width="stretch")
        _exports(name)


def _linked(name: str):
    """The layer linked to its corpus, for an export being made (the button was clicked)."""
    result = cached.layer(name)
    if result is None or isinstance(result, cached.LoadFailure):
        raise RuntimeError(f"the layer {name} is no longer available")
    return result


def _exports(name: str) -> None:
    from data_access.codraw import icr_layer as codraw_icr
    from data_access.gos import mentions_layer as gos_mentions

    if name == "gos-mentions":
        st.download_button("⬇ Linked mentions in the published layout (JSON Lines)",
                           data=lambda: gos_mentions.to_jsonl(_linked(name).annotations), file_name=LAYER_FILES[name],
                           mime="application/jsonl", key=f"layer_export_{name}", on_click="ignore")
    else:
        left, right = st.columns(2)
        left.download_button("⬇ Rows in the published layout (TSV)", data=lambda: codraw_icr.to_tsv(_linked(name).rows),
                             file_name=LAYER_FILES[name], mime="text/tab-separated-values", key=f"layer_export_{name}",
                             on_click="ignore")
        right.download_button("⬇ Rows with their alignment (CSV)", data=lambda: _linked(name).rows.to_csv(index=False),
                              file_name="icr-codraw-alignment.csv", mime="text/csv", key=f"layer_alignment_{name}",
                              on_click="ignore")
