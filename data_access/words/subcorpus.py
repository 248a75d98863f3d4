"""Sub-corpora: filters on the messages of the ``utterances`` frame, turned into a boolean mask.

``message_facts`` gathers, once per index, what every filter needs for each message (its split, its
dialog's outcome, its round's locks, the published layers' labels); ``subcorpus_mask(facts, filters, codes)``
is then a few vectorised comparisons. Every filter left empty keeps everything; filters combine with AND.

- ``corpora``, ``roles``, ``splits``: the message's corpus, speaker role, dialog split (any of those given);
- ``score_min`` / ``score_max``: CoDraw dialogs whose final score lies in the range (inclusive);
- ``gos_lock``: A Game Of Sorts rounds ``with`` or ``without`` a mismatched lock;
- ``build``: Minecraft dialogs whose final structure is ``exact`` (the target, up to the alignment) or ``not exact``;
- ``cr``: CoDraw rounds the published CR layer labels ``CR`` or ``not CR`` (unaligned rounds are neither);
- ``mention``: A Game Of Sorts messages with a published mention of ``one`` image or of ``several``;
- ``code_label`` (with ``code_coder``, ``gold`` for the gold layer, empty for any coder): messages in a dialog,
  round, turn or span the user's own coding labelled so.

A filter that belongs to one corpus (outcome, layer label) keeps only messages of that corpus that meet it.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Mapping, Optional

import numpy as np
import pandas as pd

FACT_COLUMNS = ["corpus", "role", "split", "score", "build_exact", "round_mismatch", "cr", "mention_one",
                "mention_several", "dialog", "dialog_id", "round", "turn", "position"]
GOS_LOCK = ("with", "without")
BUILD = ("exact", "not exact")
CR = ("CR", "not CR")
MENTION = ("one", "several")
GOLD = "gold"


@dataclass(frozen=True)
class Filters:
    """A sub-corpus definition (hashable, so that results can be cached by it)."""

    corpora: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()
    splits: tuple[str, ...] = ()
    score_min: Optional[float] = None
    score_max: Optional[float] = None
    gos_lock: str = ""
    build: str = ""
    cr: str = ""
    mention: str = ""
    code_label: str = ""
    code_coder: str = ""
    code_book: str = ""
    # A slice (docs/slices.md): only the messages of its dialogs. Its dialogs are the app's to find (it evaluates
    # the slice on each corpus and hands them to ``WordCorpus.mask`` as ``within``); ``subcorpus_mask`` reads
    # only the other fields.
    slice: str = ""

    def is_empty(self) -> bool:
        return self == Filters()

    def describe(self) -> str:
        """The filters in words ("all messages" when none is set)."""
        parts = []
        for name, label in (("corpora", "corpus"), ("roles", "role"), ("splits", "split")):
            if getattr(self, name):
                parts.append(f"{label} {' or '.join(getattr(self, name))}")
        if self.score_min is not None or self.score_max is not None:
            low = "0" if self.score_min is None else f"{self.score_min:g}"
            high = "5" if self.score_max is None else f"{self.score_max:g}"
            parts.append(f"CoDraw final score {low}–{high}")
        if self.gos_lock:
            parts.append(f"Game Of Sorts rounds {self.gos_lock} a mismatched lock")
        if self.build:
            parts.append(f"Minecraft builds {self.build}")
        if self.cr:
            parts.append(f"CoDraw rounds labelled {self.cr}")
        if self.mention:
            parts.append(f"Game Of Sorts messages mentioning {self.mention} image{'s' if self.mention == 'several' else ''}")
        if self.code_label:
            who = "gold" if self.code_coder == GOLD else f"coder {self.code_coder}" if self.code_coder else "any coder"
            parts.append(f"coded {self.code_label} ({who})")
        if self.slice:
            shown = self.slice if len(self.slice) <= 80 else self.slice[:79] + "…"
            parts.append(f"slice {shown}")
        return "; ".join(parts) if parts else "all messages"


def _int(series: pd.Series) -> np.ndarray:
    return pd.to_numeric(series, errors="coerce").fillna(0).astype(np.int64).to_numpy()


def _lookup(keys: pd.DataFrame, table: pd.DataFrame, on: list[str], column: str) -> pd.Series:
    """``table[column]`` for each row of ``keys`` (a left join on ``on``; missing → <NA>), in ``keys``' order."""
    if table is None or table.empty:
        return pd.Series([pd.NA] * len(keys), dtype="object")
    table = table.drop_duplicates(on)[on + [column]]
    return keys[on].merge(table, on=on, how="left", sort=False)[column].reset_index(drop=True)


def message_facts(utterances: pd.DataFrame, dialogs: dict[str, pd.DataFrame],
                  round_outcomes: Optional[Mapping[str, pd.DataFrame]] = None, cr_labels: Optional[pd.DataFrame] = None,
                  mentions: Optional[pd.DataFrame] = None) -> pd.DataFrame:
    """FACT_COLUMNS per message (same rows as ``utterances``).

    ``dialogs``: each corpus's dialogs frame (split; a ``final_score`` where the corpus scores its dialogs,
    CoDraw; an ``outcome_match`` where it has a target to build, Minecraft); ``round_outcomes``: corpus → the
    rounds its package's ``round_outcomes`` gives (dialog_id, round, mismatches; A Game Of Sorts);
    ``cr_labels``: the codraw-icr layer's annotations (corpus, dialog_id, turn, label); ``mentions``: the
    gos-mentions annotations (corpus, dialog_id, round, turn, single). The corpus of a row is always the one
    its table names, so that no corpus is named here."""
    frame = utterances.reset_index(drop=True)
    keys = pd.DataFrame({"corpus": frame["corpus"].astype("str"), "dialog_id": frame["dialog_id"].astype("str"),
                         "round": _int(frame["round"]), "turn": _int(frame["turn"])})
    parts = [d.assign(corpus=name, dialog_id=d["dialog_id"].astype("str"))
             .reindex(columns=["corpus", "dialog_id", "split", "final_score", "outcome_match"])
             for name, d in dialogs.items() if d is not None and len(d)]
    per_dialog = pd.concat(parts, ignore_index=True) if parts else None
    facts = pd.DataFrame({"corpus": keys["corpus"], "role": frame["role"].astype("str")})
    facts["split"] = _lookup(keys, per_dialog, ["corpus", "dialog_id"], "split").astype("object").fillna("").astype("str")
    facts["score"] = pd.to_numeric(_lookup(keys, per_dialog, ["corpus", "dialog_id"], "final_score"), errors="coerce").astype(float)
    facts["build_exact"] = _lookup(keys, per_dialog, ["corpus", "dialog_id"], "outcome_match").astype("boolean")
    played = [pd.DataFrame({"corpus": name, "dialog_id": table["dialog_id"].astype("str"), "round": _int(table["round"]),
                            "mismatch": pd.to_numeric(table["mismatches"], errors="coerce") > 0})
              for name, table in (round_outcomes or {}).items() if table is not None and len(table)]
    rounds = pd.concat(played, ignore_index=True) if played else None
    facts["round_mismatch"] = _lookup(keys, rounds, ["corpus", "dialog_id", "round"], "mismatch").astype("boolean")
    labels = None
    if cr_labels is not None and len(cr_labels):
        # a round with rows labelled both ways (duplicates in the layer) counts as a CR
        labels = pd.DataFrame({"corpus": cr_labels["corpus"].astype("str"), "dialog_id": cr_labels["dialog_id"].astype("str"),
                               "turn": _int(cr_labels["turn"]), "is_cr": (cr_labels["label"] == "CR").to_numpy()})
        labels = labels.groupby(["corpus", "dialog_id", "turn"], as_index=False)["is_cr"].max()
        labels["cr"] = np.where(labels["is_cr"], "CR", "not CR")
    facts["cr"] = _lookup(keys, labels, ["corpus", "dialog_id", "turn"], "cr").astype("object").fillna("").astype("str")
    for name, single in (("mention_one", True), ("mention_several", False)):
        found = None
        if mentions is not None and len(mentions):
            chosen = mentions[mentions["single"].astype(bool) == single]
            found = pd.DataFrame({"corpus": chosen["corpus"].astype("str"), "dialog_id": chosen["dialog_id"].astype("str"),
                                  "round": _int(chosen["round"]), "turn": _int(chosen["turn"]), "yes": True})
        facts[name] = _lookup(keys, found, ["corpus", "dialog_id", "round", "turn"], "yes").notna().to_numpy()
    facts["dialog"] = pd.factorize(pd.MultiIndex.from_frame(keys[["corpus", "dialog_id"]]), sort=False)[0]
    facts["round"] = keys["round"].to_numpy()
    facts["turn"] = keys["turn"].to_numpy()
    # a span annotation names its utterance by its position among the utterances of its turn
    facts["position"] = keys.groupby(["corpus", "dialog_id", "round", "turn"], sort=False).cumcount().to_numpy()
    facts["dialog_id"] = keys["dialog_id"]
    for column in ("corpus", "role", "split", "cr"):  # filters compare codes, not strings
        facts[column] = facts[column].astype("category")
    return facts[FACT_COLUMNS]


_ROUND, _TURN, _POSITION = np.int64(1 << 20), np.int64(1 << 10), np.int64(1 << 10)


def codes_mask(facts: pd.DataFrame, codes: pd.DataFrame) -> np.ndarray:
    """Messages covered by the annotations ``codes`` (the coding store's frame: corpus, dialog_id, round,
    turn, utterance, scope): a dialog label covers its dialog (or its round when it names one), a turn label
    the messages at that turn, a span label its utterance."""
    mask = np.zeros(len(facts), dtype=bool)
    if codes is None or codes.empty:
        return mask
    firsts = facts.drop_duplicates(["corpus", "dialog_id"])
    lookup = dict(zip(zip(firsts["corpus"], firsts["dialog_id"]), firsts["dialog"].astype(np.int64)))
    dialog = facts["dialog"].to_numpy(dtype=np.int64)
    rounds, turns = facts["round"].to_numpy(dtype=np.int64), facts["turn"].to_numpy(dtype=np.int64)
    positions = facts["position"].to_numpy(dtype=np.int64)
    by_round = dialog * _ROUND + rounds
    by_turn = by_round * _TURN + turns
    by_span = by_turn * _POSITION + positions
    wanted: dict[str, list] = {"dialog": [], "round": [], "turn": [], "span": []}
    for row in codes.itertuples(index=False):
        code = lookup.get((str(row.corpus), str(row.dialog_id)))
        if code is None:
            continue
        round_ = 0 if pd.isna(row.round) else int(row.round)
        if row.scope == "dialog":
            if pd.isna(row.round):
                wanted["dialog"].append(code)
            else:
                wanted["round"].append(code * _ROUND + round_)
        elif row.scope in ("turn", "span") and not pd.isna(row.turn):
            turn_key = (code * _ROUND + round_) * _TURN + int(row.turn)
            if row.scope == "turn" or pd.isna(row.utterance):
                wanted["turn"].append(turn_key)
            else:
                wanted["span"].append(turn_key * _POSITION + int(row.utterance))
    for keys, values in ((dialog, wanted["dialog"]), (by_round, wanted["round"]), (by_turn, wanted["turn"]),
                         (by_span, wanted["span"])):
        if values:
            mask |= np.isin(keys, np.asarray(values, dtype=np.int64))
    return mask


def _is_in(column: pd.Series, values) -> np.ndarray:
    """``column.isin(values)`` as a numpy mask, on the category codes when the column is categorical."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        categories = column.cat.categories
        wanted = [categories.get_loc(v) for v in values if v in categories]
        return np.isin(column.cat.codes.to_numpy(), np.asarray(wanted, dtype=np.int64))
    return column.isin(list(values)).to_numpy()


def subcorpus_mask(facts: pd.DataFrame, filters: Filters, codes: Optional[pd.DataFrame] = None) -> np.ndarray:
    """The messages of ``facts`` that meet every filter. ``codes``: the annotations selected by the code filter
    (``filters.code_label``; the caller reads them from the coding store), ignored when no code is asked for."""
    mask = np.ones(len(facts), dtype=bool)
    for column, wanted in (("corpus", filters.corpora), ("role", filters.roles), ("split", filters.splits)):
        if wanted:
            mask &= _is_in(facts[column], wanted)
    if filters.score_min is not None or filters.score_max is not None:
        score = facts["score"].to_numpy(dtype=float)
        inside = ~np.isnan(score)  # only dialogs of a corpus that scores them have a final score
        if filters.score_min is not None:
            inside &= score >= float(filters.score_min) - 1e-9
        if filters.score_max is not None:
            inside &= score <= float(filters.score_max) + 1e-9
        mask &= inside
    if filters.gos_lock:
        if filters.gos_lock not in GOS_LOCK:
            raise ValueError(f"gos_lock must be one of {GOS_LOCK}")
        mismatch = facts["round_mismatch"]
        mask &= (mismatch == (filters.gos_lock == "with")).fillna(False).to_numpy(dtype=bool)
    if filters.build:
        if filters.build not in BUILD:
            raise ValueError(f"build must be one of {BUILD}")
        mask &= (facts["build_exact"] == (filters.build == "exact")).fillna(False).to_numpy(dtype=bool)
    if filters.cr:
        if filters.cr not in CR:
            raise ValueError(f"cr must be one of {CR}")
        mask &= _is_in(facts["cr"], [filters.cr])
    if filters.mention:
        if filters.mention not in MENTION:
            raise ValueError(f"mention must be one of {MENTION}")
        mask &= facts["mention_one" if filters.mention == "one" else "mention_several"].to_numpy(dtype=bool)
    if filters.code_label:
        mask &= codes_mask(facts, codes if codes is not None else pd.DataFrame())
    return mask


def select_codes(annotations: pd.DataFrame, filters: Filters) -> pd.DataFrame:
    """The annotations (coding store frame) the code filter asks for: label, coder or gold, codebook."""
    if not filters.code_label or annotations is None or annotations.empty:
        return annotations.iloc[0:0] if annotations is not None else pd.DataFrame()
    chosen = annotations[(annotations["label"] == filters.code_label)]
    if "kind" in chosen.columns:
        chosen = chosen[chosen["kind"] == "label"]
    if filters.code_book:
        chosen = chosen[chosen["codebook"] == filters.code_book]
    if filters.code_coder == GOLD:
        chosen = chosen[chosen["layer"] == GOLD]
    elif filters.code_coder:
        chosen = chosen[(chosen["coder"] == filters.code_coder) & (chosen["layer"] != GOLD)]
    return chosen


FILTER_FIELDS = tuple(f.name for f in fields(Filters))
