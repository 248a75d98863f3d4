"""Coding queues: a seeded sample of dialogs or turns of one corpus slice, to assign to coders."""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np
import pandas as pd

from ..common import LoadedCorpus
from ..links import Place


def sample_items(loaded: LoadedCorpus, unit: str, n: int, seed: int = 0, splits: Sequence[str] = (),
                 contains: Optional[str] = None, within: Optional[Sequence[str]] = None,
                 moments: Optional[Sequence[tuple[str, Optional[int], int]]] = None) -> list[Place]:
    """``n`` items — places (corpus, dialog_id, round, step) — drawn without replacement (seeded) from the dialogs
    (``unit="dialog"``: each opens at its first step), turns (``unit="turn"``) or ``moments`` (``unit="moment"``: a
    step slice's steps, as (dialog_id, round, turn), a lock event's too) of the corpus, restricted to ``splits``, to
    the dialogs ``within`` (a slice's; None: all) and to dialogs with an utterance containing ``contains``
    (case-insensitive)."""
    if unit not in ("dialog", "turn", "moment"):
        raise ValueError(f"unit must be dialog, turn or moment; got {unit!r}")
    if unit == "moment" and moments is None:
        raise ValueError("sampling moments needs a step slice's moments")
    dialogs = loaded.dialogs
    if within is not None:
        dialogs = dialogs[dialogs["dialog_id"].astype(object).isin(list(within)).to_numpy()]
    if splits:
        dialogs = dialogs[dialogs["split"].isin(list(splits))]
    utterances = loaded.utterances[loaded.utterances["dialog_id"].isin(set(dialogs["dialog_id"]))]
    if contains:
        hits = utterances["text"].astype(str).str.contains(contains, case=False, regex=False)
        utterances = utterances[utterances["dialog_id"].isin(set(utterances.loc[hits, "dialog_id"]))]
    places = utterances[["corpus", "dialog_id", "round", "turn"]].drop_duplicates()
    if unit == "moment":
        allowed = set(utterances["dialog_id"].astype(str)) if contains else set(dialogs["dialog_id"].astype(str))
        places = pd.DataFrame([(loaded.corpus, d, r, t) for d, r, t in moments or () if d in allowed],
                              columns=["corpus", "dialog_id", "round", "turn"]).astype({"round": "Int64"})
    if unit == "dialog":
        places = places.sort_values(["dialog_id", "round", "turn"], na_position="first").drop_duplicates("dialog_id")
    places = places.sort_values(["dialog_id", "round", "turn"], na_position="first").reset_index(drop=True)
    count = min(int(n), len(places))
    picked: Any = np.random.default_rng(seed).choice(len(places), size=count, replace=False) if count else []
    out = []
    for index in sorted(int(i) for i in picked):
        row = places.iloc[index]
        out.append(Place(str(row["corpus"]), str(row["dialog_id"]),
                         None if pd.isna(row["round"]) else int(row["round"]),
                         None if pd.isna(row["turn"]) else int(row["turn"])))
    return out


def empty_sample_reason(unit: str, splits: Sequence[str] = (), contains: Optional[str] = None) -> str:
    """Why ``sample_items`` drew nothing, in words: which filters left no dialog or turn."""
    where = f"in split(s) {', '.join(map(str, splits))}" if splits else "in this corpus"
    if contains:
        has = "has" if unit == "dialog" else "is in a dialog with"
        return f"no {unit} {where} {has} an utterance containing “{contains}” (ignoring case)."
    return f"there is no {unit} with an utterance {where}."
