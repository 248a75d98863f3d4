"""A Game Of Sorts' published mentions layer (Willemsen, Qian & Skantze, SIGDIAL 2023) in the app: the message's
mentions highlighted on the Replay with the images they name framed on both boards, the mentions among Search's
results, the mentions per round and board on the outcomes page, and the layer's Data-page figures and export.

Every text from the layer or the corpus is escaped before it reaches HTML or markdown."""
from __future__ import annotations

import dataclasses
import html
from typing import Optional

import pandas as pd
import streamlit as st

from corpora.gos.data import mentions_analysis, mentions_layer
from corpora.gos.data.mentions_view import SPAN_COLOURS, MentionStep, mention_step
from dialogue_dashboard.plugin.views import Corpus, layer_derived, layer_ready, linked_layer, loaded_layer, served_links

LAYER = mentions_layer.LAYER


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


@dataclasses.dataclass(frozen=True)
class StepMentions:
    """The published mentions at one replay step: whether the reader shows them, the steps of the round that have
    some, the step's (None: none at this step) and the boards with the mentioned images framed."""

    shown: bool
    listed: str = ""
    step: Optional[MentionStep] = None
    boards: tuple = ()


def step_mentions(corpus: Corpus, view) -> StepMentions:
    """The mentions of the step shown, found before the step player draws the boards (no element drawn: the
    switch's state is read from the session, the switch itself is drawn under the player, ``replay_mentions``)."""
    if not layer_ready(LAYER):
        return StepMentions(False, boards=tuple(view.boards))
    if not st.session_state.get("gos_layer_mentions", True):
        return StepMentions(False, boards=tuple(view.boards))
    turns = layer_derived(mentions_analysis.round_mention_turns, LAYER, view.dialog_id, view.round) or {}
    if not turns:
        return StepMentions(True, boards=tuple(view.boards))
    listed = ", ".join(str(t) for t in sorted(turns))
    ranks = tuple(zip(view.ranks["image_id"], view.ranks["rank"])) if "image_id" in view.ranks else ()
    players = tuple((board.username, board.pending) for board in view.boards)
    step = layer_derived(mention_step, LAYER, view.dialog_id, view.round, view.step, ranks, players)
    if step is None or not step.text:
        return StepMentions(True, listed, boards=tuple(view.boards))
    pictures = dict(step.boards)
    return StepMentions(True, listed, step, tuple(dataclasses.replace(board, png=pictures[board.username])
                                                  if board.username in pictures else board for board in view.boards))


def replay_mentions(found: StepMentions) -> None:
    """Under the player: the switch of the published mentions, and the step's message with its mentions
    highlighted and listed (the boards the player shows have their images framed)."""
    if not layer_ready(LAYER):
        return
    st.toggle("Published mentions", value=True, key="gos_layer_mentions",
              help="Referring expressions annotated by Willemsen et al. (SIGDIAL 2023): spans of each message "
                   "linked to the images they name.")
    if not found.shown:
        return
    if not found.listed:
        st.caption("No message of this round has annotated mentions.")
        return
    step = found.step
    if step is None:
        st.caption(f"Steps of this round whose message has annotated mentions: {found.listed}.")
        return
    st.html(_highlighted_html(step))
    note = f" {step.out_of_range} mention(s) have offsets that do not fit the message and are not highlighted." \
        if step.out_of_range else ""
    st.caption(f"Mentions of the published layer; the images they name are framed in amber on both boards.{note} "
               f"Steps of this round with mentions: {found.listed}.")


def mention_search(corpus: Corpus, query: str, case_sensitive: bool = False) -> None:
    """Search results among the published A Game Of Sorts mentions (all words, or a quoted phrase)."""
    if not query.strip() or not layer_ready(LAYER):
        return
    hits = layer_derived(mentions_analysis.search_mentions, LAYER, query, case_sensitive)
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


def mention_counts(charts_module) -> None:
    """Game Of Sorts outcomes: mentions per round number and per criterion (board)."""
    st.header("Mentions (published layer)")
    if not layer_ready(LAYER):
        loaded_layer(LAYER, explain=True)
        return
    from corpora.gos.data import figures  # the charts only when a page shows them

    # on the URL's slice when there is one (charts_module.layer_build)
    charts_module.show(charts_module.layer_build(figures.mentions_round_chart, LAYER))
    table = charts_module.layer_build(mentions_analysis.mentions_per_round, LAYER)
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




def layer_report(corpus: Corpus, name: str, figures: dict, unmatched: list) -> None:
    """The Data page's figures of the linked layer."""
    metrics = st.columns(5)
    metrics[0].metric("Messages", f"{figures['messages']:,}")
    metrics[1].metric("Mentions", f"{figures['mentions']:,}", f"{figures['mentions_single']:,} of one image",
                      delta_color="off", delta_arrow="off")
    metrics[2].metric("Image links", f"{figures['images_linked']:,}")
    metrics[3].metric("Messages not in the corpus", f"{figures['unmatched_messages']:,}")
    metrics[4].metric("Spans out of range", f"{figures['spans_out_of_range']:,}")
    if unmatched:
        st.dataframe(pd.DataFrame({"message not in the corpus": unmatched}), hide_index=True, width="stretch")


def layer_exports(corpus: Corpus, name: str, file_name: str) -> None:
    """The Data page's download of the linked mentions in the published layout."""
    st.download_button("⬇ Linked mentions in the published layout (JSON Lines)",
                       data=lambda: mentions_layer.to_jsonl(linked_layer(name).annotations), file_name=file_name,
                       mime="application/jsonl", key=f"layer_export_{name}", on_click="ignore")
