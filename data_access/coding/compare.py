"""Turn annotation frames (coders, the gold layer, published layers) into what the agreement statistics take,
and list disagreements side by side (adjudication, which writes the gold layer, is in ``adjudication``). Pure pandas."""
from __future__ import annotations

import re
from itertools import combinations
from typing import Optional, Sequence

import pandas as pd

from . import agreement as ag

SOURCE_COLUMNS = ["corpus", "dialog_id", "round", "turn", "utterance", "start", "end", "label", "referents", "coder",
                  "scope", "span_text"]
GOLD = "gold"


def coded_sources(annotations: pd.DataFrame) -> pd.DataFrame:
    """Label annotations in SOURCE_COLUMNS; the gold layer appears as coder ``gold``."""
    frame = annotations[annotations.get("kind", "label") == "label"] if "kind" in annotations else annotations
    out = frame.assign(coder=[GOLD if layer == GOLD else coder for layer, coder in zip(frame["layer"], frame["coder"])])
    return out[SOURCE_COLUMNS].reset_index(drop=True)


# A published layer's label for "looked at, not this": the layer's rounds that carry it were coded, so a coder's
# label for the same class must meet it, not a unit the layer left empty ("none").
LAYER_NEGATIVES = {"codraw-icr": "not CR"}


def _squashed(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.lower())


def negative_label_guess(labels: Sequence[str], positive: str) -> Optional[str]:
    """The codebook label that most likely names the layer's negative class of ``positive`` ("no-CR",
    "not CR", "non_CR" for "CR"), or None when no label reads so."""
    wanted = {_squashed(prefix + positive) for prefix in ("no", "not", "non")}
    return next((label for label in labels if _squashed(label) in wanted), None)


def layer_source(layer_frame: pd.DataFrame, name: str, mapping: dict, scope: str) -> pd.DataFrame:
    """A published layer (common annotation form) as one more coder called ``name``: its labels renamed by
    ``mapping`` (layer label -> codebook label). A layer label not in it means "no label" for that unit, which
    the overall statistics count as the value "none": map the layer's negative class (``LAYER_NEGATIVES``) onto
    the codebook's, or a coder who labels those units with it disagrees with the layer on each."""
    kept = layer_frame[layer_frame["label"].isin(list(mapping))]
    if scope == "span":
        kept = kept[kept["start"].notna() & kept["end"].notna()]
        if "span_ok" in kept:
            kept = kept[kept["span_ok"].fillna(False).astype(bool)]
    return pd.DataFrame({
        "corpus": kept["corpus"].astype(str), "dialog_id": kept["dialog_id"].astype(str),
        "round": kept["round"].astype("Int64"), "turn": kept["turn"].astype("Int64"),
        "utterance": pd.Series([0] * len(kept), index=kept.index, dtype="Int64"),
        "start": kept["start"].astype("Int64"), "end": kept["end"].astype("Int64"),
        "label": kept["label"].map(mapping), "referents": kept["referents"].map(lambda r: list(r) if r is not None else []),
        "coder": name, "scope": scope,
        "span_text": kept["text"].astype(object) if scope == "span" and "text" in kept else None,
    }, columns=SOURCE_COLUMNS).reset_index(drop=True)


def layer_units(layer_frame: pd.DataFrame, within: Optional[pd.DataFrame] = None) -> list[tuple]:
    """Units (corpus, dialog, round, turn) the layer annotated, optionally only in dialogs ``within`` has."""
    units = layer_frame[ag.UNIT_KEYS].drop_duplicates()
    if within is not None:
        dialogs = set(zip(within["corpus"], within["dialog_id"]))
        units = units[[d in dialogs for d in zip(units["corpus"], units["dialog_id"])]]
    return [tuple(_plain(v) for v in row) for row in units.itertuples(index=False)]


def queue_units(items: pd.DataFrame, frame: pd.DataFrame, scope: str) -> tuple[list[tuple], dict[str, set]]:
    """The units of a coding queue and, per coder, the units they finished (``CodingStore.queue_items``).

    Turn scope with a queue of turns, or dialog scope with a queue of dialogs: the items themselves. Turn scope
    with a queue of dialogs: the turns anyone labelled (``frame``) in the queue's dialogs, each finished by the
    coders who marked its dialog done. A unit a coder has not marked done is missing for them, not "no label"."""
    done = items[items["status"] == "done"]
    item_keys = [tuple(_plain(v) for v in row) for row in items[ag.UNIT_KEYS].itertuples(index=False)]
    of_dialogs = all(key[3] is None for key in item_keys)
    if scope == "turn" and of_dialogs:
        dialogs = {key[:3] for key in item_keys}
        labelled = [tuple(_plain(v) for v in row) for row in frame[ag.UNIT_KEYS].itertuples(index=False)]
        units = list(dict.fromkeys(u for u in labelled if u[:3] in dialogs or (*u[:2], None) in dialogs))
        finished: dict[str, set] = {}
        for coder, corpus, dialog, round_ in zip(done["coder"], done["corpus"], done["dialog_id"], done["round"]):
            key = (corpus, dialog, _plain(round_))
            finished.setdefault(coder, set()).update(u for u in units if u[:3] == key or (key[2] is None and u[:2] == key[:2]))
        return units, finished
    wanted = [key for key in item_keys if (key[3] is None) == (scope == "dialog")]
    finished = {}
    for coder, *unit in zip(done["coder"], *(done[c] for c in ag.UNIT_KEYS)):
        finished.setdefault(coder, set()).add(tuple(_plain(v) for v in unit))
    return list(dict.fromkeys(wanted)), finished


def _plain(value):
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return None
    return value if isinstance(value, str) else int(value)


def span_pairs(frame: pd.DataFrame, coders: Sequence[str]) -> pd.DataFrame:
    """For each pair of coders: spans matched exactly and by overlap, F1 of each, and referent agreement over
    the spans matched by overlap (same referent set; mean Jaccard) — only where both coded the dialog."""
    rows = []
    for first, second in combinations(coders, 2):
        a, b = frame[frame["coder"] == first], frame[frame["coder"] == second]
        shared = set(zip(a["corpus"], a["dialog_id"])) & set(zip(b["corpus"], b["dialog_id"]))
        a = a[[d in shared for d in zip(a["corpus"], a["dialog_id"])]]
        b = b[[d in shared for d in zip(b["corpus"], b["dialog_id"])]]
        exact = ag.span_agreement(ag.spans_of(a), ag.spans_of(b))
        overlap = ag.span_agreement(ag.spans_of(a), ag.spans_of(b), mode="overlap")
        refs = ag.matched_referent_agreement(overlap, ag.span_referents(a), ag.span_referents(b))
        rows.append({"coders": f"{first} vs {second}", "dialogs": len(shared), "spans_first": len(ag.spans_of(a)),
                     "spans_second": len(ag.spans_of(b)), "exact_matched": exact.matched, "exact_f1": exact.f1,
                     "overlap_matched": overlap.matched, "overlap_f1": overlap.f1,
                     "referent_items": refs["items"], "same_referents": refs["same_set"],
                     "referent_jaccard": refs["mean_jaccard"]})
    return pd.DataFrame(rows, columns=["coders", "dialogs", "spans_first", "spans_second", "exact_matched", "exact_f1",
                                       "overlap_matched", "overlap_f1", "referent_items", "same_referents",
                                       "referent_jaccard"])


def disagreements(frame: pd.DataFrame, coders: Sequence[str], units: Optional[Sequence] = None,
                  assigned: Optional[dict] = None) -> pd.DataFrame:
    """Units (turn/dialog scope) the coders labelled differently, one column per coder with their labels."""
    matrix, all_units = ag.reliability_matrix(frame, coders, units, assigned=assigned)
    rows = []
    for index, unit in enumerate(all_units):
        values = [matrix[c][index] for c in range(len(coders))]
        present = [v for v in values if v is not None]
        if len(present) >= 2 and len(set(present)) > 1:
            row = dict(zip(ag.UNIT_KEYS, unit))
            for coder, value in zip(coders, values):
                row[coder] = "—" if value is None else ", ".join(value)
            rows.append(row)
    return pd.DataFrame(rows, columns=[*ag.UNIT_KEYS, *coders])


def span_disagreements(frame: pd.DataFrame, coders: Sequence[str]) -> pd.DataFrame:
    """Utterances where the coders' span sets (offsets, label, referents) differ, one column per coder."""
    keyed: dict = {}
    for row in frame.itertuples(index=False):
        unit = (row.corpus, row.dialog_id, None if pd.isna(row.round) else int(row.round),
                None if pd.isna(row.turn) else int(row.turn), None if pd.isna(row.utterance) else int(row.utterance))
        text = f"{row.label} [{int(row.start)}:{int(row.end)}]" + (f" → {', '.join(row.referents)}" if row.referents else "")
        keyed.setdefault(unit, {}).setdefault(row.coder, set()).add(text)
    dialogs = {c: set(zip(frame.loc[frame["coder"] == c, "corpus"], frame.loc[frame["coder"] == c, "dialog_id"]))
               for c in coders}
    rows = []
    for unit, by_coder in sorted(keyed.items(), key=lambda item: repr(item[0])):
        seen = [c for c in coders if unit[:2] in dialogs[c]]
        if len(seen) < 2:
            continue
        values = [frozenset(by_coder.get(c, set())) for c in seen]
        if len(set(values)) > 1:
            row = {"corpus": unit[0], "dialog_id": unit[1], "round": unit[2], "turn": unit[3], "utterance": unit[4]}
            for coder in coders:
                row[coder] = "; ".join(sorted(by_coder.get(coder, set()))) if coder in seen else "—"
            rows.append(row)
    return pd.DataFrame(rows, columns=["corpus", "dialog_id", "round", "turn", "utterance", *coders])


def agreed_units(frame: pd.DataFrame, coders: Sequence[str]) -> list[tuple]:
    """(unit, labels) where every coder who coded the unit's dialog put the same (non-empty) label set."""
    matrix, all_units = ag.reliability_matrix(frame, coders)
    out = []
    for index, unit in enumerate(all_units):
        present = [matrix[c][index] for c in range(len(coders)) if matrix[c][index] is not None]
        if len(present) == len(coders) and len(set(present)) == 1 and present[0] != ("none",):
            out.append((unit, list(present[0])))
    return out
