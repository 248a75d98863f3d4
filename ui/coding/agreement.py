"""The Agreement page's sections: sources (coders, gold, a published layer), statistics per label and overall
with bootstrap intervals, span and referent agreement, the disagreement browser and adjudication into gold
(shown to adjudicators only once signed in; every save names the session's identity, ``ui.shell.auth.writer``)."""
from __future__ import annotations

import math
from typing import Optional

import pandas as pd
import streamlit as st

from data_access import corpora
from data_access.access import AccessRefused
from data_access.coding import adjudication, compare
from data_access.coding import agreement as agreement_statistics  # noqa: F401 - for the Agreement page
from data_access.coding.codebook import Codebook
from data_access.coding.compare import GOLD
from data_access.exports import to_csv_bytes, to_jsonl_bytes
from data_access.links import replay_link
from data_access.store import NO_DECISION, CodingStore, GoldConflict, GoldUnit, StoreError, to_common_form
from ui.shell import auth
from ui.shell.url_state import served
from ui.store import remembered
from ui.widgets import md_escape

LAYER_SCOPES = {"gos-mentions": ("span", "mention"), "codraw-icr": ("turn", "CR")}
NO_LABEL = "(no label: counted as “none”)"
OVERALL_NOTE = ("Overall: each unit's whole set of labels is one value (“none” where a coder put no label), so two "
                "coders agree on a unit only when they put exactly the same labels there; per label: that label put "
                "there or not (binary).")


UNITS_ANYONE = ("Units: every turn (or dialog) any of them labelled, in dialogs each coded; a coder who opened a "
                "dialog but put no label on a unit counts as “none”.")


def queue_unit_choice(coding: CodingStore, chosen: pd.DataFrame, scope: str) -> tuple[Optional[list], Optional[dict], str]:
    """Which units the statistics run over: those anyone labelled, or a coding queue's items (each counted for
    the coders who marked it done). Returns (units, assigned, caption note)."""
    queues = remembered("queues", coding.queues, pd.DataFrame(columns=["queue"]), "Agreement")
    names = list(dict.fromkeys(queues["queue"])) if not queues.empty else []
    if not names:
        return None, None, UNITS_ANYONE
    choice = st.selectbox("Units", ["labelled by anyone", *names], key=f"agreement_units_{scope}",
                          format_func=lambda n: n if n == "labelled by anyone" else f"items of queue “{n}”")
    if choice == "labelled by anyone":
        return None, None, UNITS_ANYONE
    items = remembered(f"queue {choice}", lambda: coding.queue_items(choice), None, "Agreement")
    if items is None:
        return None, None, UNITS_ANYONE
    units, assigned = compare.queue_units(items, chosen, scope)
    return units, assigned, (f"Units: the {len(units):,} {scope}s of queue “{md_escape(choice)}”; a unit counts for "
                             "the coders who marked it done (“none” where they put no label), and is missing for the others.")


def fmt(value: float) -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.3f}"


def with_interval(value: float, low: float, high: float) -> str:
    if value is None or math.isnan(value):
        return "n/a"
    if low is None or math.isnan(low):
        return fmt(value)
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"


def statistics_table(table: pd.DataFrame, n_coders: int) -> pd.DataFrame:
    shown = pd.DataFrame({
        "label": table["label"], "units": table["units"],
        "% agreement": table["percent_agreement"].map(lambda v: "n/a" if math.isnan(v) else f"{100 * v:.1f}%"),
        "Krippendorff's α (95% CI)": [with_interval(v, lo, hi) for v, lo, hi in
                                      zip(table["alpha"], table["alpha_low"], table["alpha_high"])],
        "Fleiss' κ": table["fleiss_kappa"].map(fmt),
    })
    if n_coders == 2:
        shown.insert(3, "Cohen's κ (95% CI)", [with_interval(v, lo, hi) for v, lo, hi in
                                               zip(table["cohen_kappa"], table["kappa_low"], table["kappa_high"])])
    return shown


def layer_choice(book: Codebook, scope: str, key: str) -> Optional[tuple[str, pd.DataFrame, dict]]:
    """A published layer to compare with (when one is loaded for this scope), and the label mapping."""
    from ui import cached

    options = [name for name, (layer_scope, _) in LAYER_SCOPES.items() if layer_scope == scope]
    labels = [label.name for label in book.labels_for(scope)]
    if not options or not labels:
        return None
    name = st.selectbox("Compare with a published layer", ["(none)", *options], key=f"{key}_layer")
    if name == "(none)":
        return None
    try:
        loaded = cached.layer(name)
    except Exception as exc:  # noqa: BLE001 - the layer's own page explains failures in full
        st.warning(f"The layer {name} is unavailable: {md_escape(str(exc))}")
        return None
    frame = getattr(loaded, "annotations", None)
    if frame is None:
        st.warning(f"The layer {name} is not loaded (see the Data page).")
        return None
    layer_label = LAYER_SCOPES[name][1]
    mine = st.selectbox(f"Your label that means the layer's “{layer_label}”", labels, key=f"{key}_map")
    mapping = {layer_label: mine}
    negative = compare.LAYER_NEGATIVES.get(name)
    if negative is not None:
        others = [label for label in labels if label != mine]
        guess = compare.negative_label_guess(others, layer_label)
        options = [NO_LABEL, *others]
        theirs = st.selectbox(f"Your label that means the layer's “{negative}”", options,
                              index=options.index(guess) if guess else 0, key=f"{key}_map_negative",
                              help=f"The layer's “{negative}” rounds are rounds it looked at. Mapped onto your label, "
                                   "they agree with a coder who put it there; left as no label, they count as “none” "
                                   "in the overall row, and each of your labels there is a disagreement.")
        if theirs != NO_LABEL:
            mapping[negative] = theirs
    return name, frame, mapping


ROW_HEIGHT, LINE_HEIGHT, CHARACTERS_PER_LINE = 35, 21, 48  # a "large" text column, in Streamlit's default font


def disagreement_layout(table: pd.DataFrame, coders: list[str]) -> tuple[dict, Optional[int]]:
    """Column config and row height of the disagreements table: each coder's column wide and, where its spans
    and referents do not fit one line, rows tall enough for them to wrap (a cut cell hid the referents)."""
    config: dict = {"replay": st.column_config.LinkColumn("Replay", display_text="open ▶")}
    present = [c for c in coders if c in table.columns]
    for coder in present:
        config[coder] = st.column_config.TextColumn(coder, width="large")
    longest = max((len(str(v)) for c in present for v in table[c]), default=0)
    lines = min(6, max(1, math.ceil(longest / CHARACTERS_PER_LINE)))
    return config, None if lines == 1 else ROW_HEIGHT + LINE_HEIGHT * (lines - 1)


def shown_places(frame: pd.DataFrame) -> pd.DataFrame:
    """The table's round and step as a reader reads them (``data_access.corpora.shown_places``)."""
    return corpora.shown_places(frame)


def linked(frame: pd.DataFrame) -> pd.DataFrame:
    links = [served(replay_link(c, d, turn=None if pd.isna(t) else int(t), round=None if pd.isna(r) else int(r)))
             for c, d, r, t in zip(frame["corpus"], frame["dialog_id"], frame["round"], frame["turn"])]
    return frame.assign(replay=links)


def adjudicate(coding: CodingStore, book: Codebook, scope: str, table: pd.DataFrame, chosen: pd.DataFrame,
               coders: list[str], adjudicator: str, key: str) -> None:
    """Pick a disagreement and decide its gold: labels for a turn or dialog, the spans to keep for an
    utterance; plus copying everything the coders agree on into gold."""
    if not adjudicator:
        st.caption("Enter your name as coder above to adjudicate.")
        return
    coders = [c for c in coders if c != GOLD]
    if not table.empty:
        index = st.selectbox("Adjudicate item", list(range(len(table))), key=f"{key}_item",
                             format_func=lambda i: _place(table.iloc[i]))
        if scope == "span":
            _decide_spans(coding, book, table.iloc[index], chosen, coders, adjudicator, f"{key}_{index}")
        else:
            _decide_labels(coding, book, scope, table.iloc[index], adjudicator, f"{key}_{index}")
    what = "spans" if scope == "span" else "items"
    if st.button(f"Copy {what} all chosen coders agree on into gold", key=f"{key}_copy"):
        copy = adjudication.copy_agreed_spans if scope == "span" else adjudication.copy_agreed_labels
        try:
            written = copy(coding, book, chosen[chosen["coder"] != GOLD], coders, adjudicator, actor=auth.writer())
        except AccessRefused as exc:
            _tell("error", str(exc))
        except StoreError as exc:
            _tell("error", f"Not copied: {exc}")
        else:
            _tell("success", f"Copied {written} agreed {'span' if scope == 'span' else 'label'}(s) into gold.")
        st.rerun()


def _tell(kind: str, text: str) -> None:
    """Leave a message for the page to show after its rerun (pages/agreement.py)."""
    st.session_state["agreement_message"] = (kind, text)


def _seen_decision(coding: CodingStore, book: Codebook, unit: GoldUnit):
    """The decision of ``unit`` as this session first saw it (``NO_DECISION`` when undecided), which a save
    names as expected: a decision someone else made in between is then refused, not replaced. Says who
    decided the unit, if anyone."""
    seen_key = f"gold_seen {book.name} {unit.key()}"
    if seen_key not in st.session_state:
        current = remembered(f"decision {seen_key}", lambda: coding.gold_decision(book.name, unit), None, "Agreement")
        st.session_state[seen_key] = current or NO_DECISION
    seen = st.session_state[seen_key]
    if seen != NO_DECISION:
        st.caption(f"Gold decided by {md_escape(seen.describe())}; saving replaces that decision.")
    return seen_key


def _save_decision(seen_key: str, save, success: str) -> None:
    """Run ``save(expected)`` against the decision seen; on a conflict, say who decided and when, and take their
    decision as seen (so saving again replaces it knowingly); the choices made stay in their widgets."""
    try:
        decision = save(st.session_state[seen_key])
    except GoldConflict as exc:
        st.session_state[seen_key] = exc.current
        _tell("error", f"Not saved: {exc}")
    except AccessRefused as exc:
        _tell("error", str(exc))
    except (StoreError, ValueError) as exc:
        _tell("error", f"Not saved: {exc}")
    else:
        st.session_state[seen_key] = decision
        _tell("success", success)
    st.rerun()


def _decide_labels(coding: CodingStore, book: Codebook, scope: str, row: pd.Series, adjudicator: str, key: str) -> None:
    labels = [label.name for label in book.labels_for(scope)]
    round_ = None if pd.isna(row["round"]) else int(row["round"])
    turn = None if pd.isna(row["turn"]) else int(row["turn"])
    unit = adjudication.label_gold_unit(scope, row["corpus"], row["dialog_id"], round_, turn)
    seen_key = _seen_decision(coding, book, unit)
    gold = st.multiselect("Gold label(s)", labels, key=f"{key}_gold")
    if st.button("Save to gold", key=f"{key}_save", disabled=not gold):
        _save_decision(seen_key, lambda expected: coding.decide_gold(
            book, unit, [{"label": name} for name in gold], adjudicator, expected, actor=auth.writer()),
            f"Saved {', '.join(gold)} as gold for {row['dialog_id']}.")


def _decide_spans(coding: CodingStore, book: Codebook, row: pd.Series, chosen: pd.DataFrame, coders: list[str],
                  adjudicator: str, key: str) -> None:
    unit = adjudication.span_unit(row)
    candidates = adjudication.span_candidates(chosen, unit, coders)
    everyone = [c for c in candidates if set(c.coders) >= set(coders)]
    keep = st.multiselect("Gold spans of this utterance", list(range(len(candidates))),
                          default=[candidates.index(c) for c in everyone], key=f"{key}_spans",
                          format_func=lambda i: candidates[i].describe(),
                          help="The distinct spans the coders put on this utterance (label, offsets, referents). "
                               "Keep none to clear the gold spans of this utterance.")
    seen_key = _seen_decision(coding, book, adjudication.span_gold_unit(unit))
    if st.button("Save spans to gold", key=f"{key}_save"):
        spans = [candidates[i] for i in keep]
        _save_decision(seen_key, lambda expected: coding.decide_gold(
            book, adjudication.span_gold_unit(unit), adjudication.gold_span_specs(spans), adjudicator, expected,
            actor=auth.writer()),
            f"Saved {len(spans)} gold span(s) for {_place(row)}.")


def _place(row) -> str:
    parts = [str(row["dialog_id"])]
    for name in ("round", "turn", "utterance"):
        if name in row and not pd.isna(row[name]):
            parts.append(f"{name} {int(row[name])}")
    return " · ".join(parts)


def gold_exports(coding: CodingStore, book: Codebook) -> None:
    gold = remembered(f"gold {book.name}", lambda: coding.annotations(codebook=book.name, layer="gold"), pd.DataFrame(),
                      "Agreement")
    if gold.empty:
        st.caption("No gold annotations yet.")
        return
    common = to_common_form(gold)
    st.caption(f"{len(gold):,} gold annotation(s), in the published layers' common form:")
    left, right, _ = st.columns([1, 1, 4])
    left.download_button("⬇ Gold as CSV", to_csv_bytes(common.assign(referents=common["referents"].map(list))),
                         f"{book.name}-gold.csv", "text/csv", on_click="ignore")
    right.download_button("⬇ Gold as JSON Lines", to_jsonl_bytes(common.to_dict(orient="records")),
                          f"{book.name}-gold.jsonl", "application/jsonl", on_click="ignore")
