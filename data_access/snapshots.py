"""Corpus-independent snapshots of replay steps, for the Compare and Present pages and the GIF / PNG exports.

Built on the corpus contract (``data_access.contract``): every corpus package provides ``step_count``,
``snapshot`` (the picture of one state: CoDraw's target and canvas, both Game Of Sorts boards, the Minecraft
build beside its target) and ``dialog_labels``. Not to be confused with a corpus's own ``view.py``, which
holds the full replay view model of that corpus."""
from __future__ import annotations

import io
from typing import Optional, Sequence

import pandas as pd
from PIL import Image

from .common import LoadedCorpus
from .contract import optional, package_of
from .pictures import animated_gif, png_strip
from .registry import CorpusAttribute


def source_facts(loaded: LoadedCorpus) -> dict:
    """Where the corpus came from: ``is_demo``, ``source`` and ``assets`` (clip art / image folder or None)."""
    return {"is_demo": loaded.is_demo, "source": loaded.source, "assets": loaded.assets}


def dialog_row(loaded: LoadedCorpus, dialog_id: str) -> Optional[dict]:
    """One row of the ``dialogs`` frame as a dict (None when the dialog is not loaded)."""
    rows = loaded.dialogs[loaded.dialogs["dialog_id"] == dialog_id]
    return rows.iloc[0].to_dict() if len(rows) else None


def dialog_ids(loaded: LoadedCorpus) -> list[str]:
    return loaded.dialogs["dialog_id"].tolist()


def rounds_of(loaded: LoadedCorpus, dialog_id: str) -> list[Optional[int]]:
    """The rounds a dialog is replayed in: [1, 2, 3, 4] for A Game Of Sorts, [None] elsewhere."""
    if package_of(loaded).REPLAY_IN_ROUNDS:
        rounds = loaded.utterances.loc[loaded.utterances["dialog_id"] == dialog_id, "round"].dropna()
        rounds_played: list[Optional[int]] = [int(r) for r in sorted(rounds.unique())]
        return rounds_played or [1]
    return [None]


def step_count(loaded: LoadedCorpus, dialog_id: str, round: Optional[int] = None) -> int:
    return int(package_of(loaded).step_count(loaded, dialog_id, round))


def snapshot(loaded: LoadedCorpus, dialog_id: str, step: int, round: Optional[int] = None) -> Image.Image:
    return package_of(loaded).snapshot(loaded, dialog_id, int(step), round)


def step_messages(loaded: LoadedCorpus, dialog_id: str, step: int, round: Optional[int] = None,
                  up_to: bool = False) -> pd.DataFrame:
    """The utterances shown at ``step`` (or at every step up to it): turn, speaker, role, text."""
    lines = loaded.utterances[loaded.utterances["dialog_id"] == dialog_id]
    if round is not None:
        lines = lines[lines["round"] == round]
    lines = lines[lines["turn"] <= step] if up_to else lines[lines["turn"] == step]
    return lines[["turn", "speaker", "role", "text"]].reset_index(drop=True)


def _captions(loaded: LoadedCorpus, dialog_id: str, steps: Sequence[int], round: Optional[int]) -> list[str]:
    captions = []
    for step in steps:
        said = step_messages(loaded, dialog_id, step, round)
        text = " / ".join(f"{r.speaker}: {r.text}" for r in said.itertuples(index=False))
        where = f"round {round}, step {step}" if round is not None else f"step {step}"
        captions.append(f"{dialog_id} · {where}" + (f" — {text}" if text else ""))
    return captions


def replay_gif(loaded: LoadedCorpus, dialog_id: str, steps: Sequence[int], round: Optional[int] = None,
               seconds_per_step: float = 1.5) -> bytes:
    """An animated GIF of the given steps, each captioned with what was said at it (for slides)."""
    frames = [snapshot(loaded, dialog_id, step, round) for step in steps]
    return animated_gif(frames, int(seconds_per_step * 1000), captions=_captions(loaded, dialog_id, steps, round))


def replay_png_strip(loaded: LoadedCorpus, dialog_id: str, steps: Sequence[int], round: Optional[int] = None,
                     columns: Optional[int] = None) -> bytes:
    """The given steps side by side (or in ``columns`` per row) as one PNG, each captioned."""
    frames = [snapshot(loaded, dialog_id, step, round) for step in steps]
    return png_strip(frames, _captions(loaded, dialog_id, steps, round), columns=columns)


def dialog_choices(loaded: LoadedCorpus) -> dict[str, str]:
    """dialog_id → a label for pickers: split and length, plus game and players for A Game Of Sorts."""
    return package_of(loaded).dialog_labels(loaded)


def dialog_window(choices: dict[str, str], current: str, query: str = "", size: int = 1000) -> tuple[list[str], int]:
    """At most ``size`` dialog ids for a picker over a large corpus, and how many match: with a ``query``, the
    first dialogs whose id or label contains it (case-insensitive); without one, the dialogs around
    ``current`` in corpus order. ``current`` is always among them, so the picker keeps its value."""
    ids = list(choices)
    text = query.strip().casefold()
    if text:
        matches = [d for d in ids if text in d.casefold() or text in choices[d].casefold()]
        shown = matches[:size]
        if current in choices and current not in shown:
            shown = [current, *shown[:size - 1]]
        return shown, len(matches)
    position = ids.index(current) if current in choices else 0
    start = max(0, min(position - size // 2, len(ids) - size))
    return ids[start:start + size], len(ids)


def typed_dialog(choices: dict[str, str], typed: str) -> Optional[str]:
    """The dialog a reader means by ``typed`` into a picker that lists only some of ``choices``: the dialog of
    that id (in any case, spaces around it ignored), else the only one whose id or label contains it; None
    when none does, or several."""
    text = str(typed).strip().casefold()
    if not text:
        return None
    exact = next((d for d in choices if d.casefold() == text), None)
    if exact is not None:
        return exact
    matches = [d for d in choices if text in d.casefold() or text in choices[d].casefold()]
    return matches[0] if len(matches) == 1 else None


def offers_same_board_plays(corpus: str) -> bool:
    """Whether the corpus has boards played by several pairs (the contract's optional ``same_board_plays``)."""
    return _SAME_BOARD_PLAYS[corpus]


# corpus name -> whether it offers ``same_board_plays`` (asked by name: the Compare page's corpus picker)
_SAME_BOARD_PLAYS = CorpusAttribute("same_board_plays", lambda plays: plays is not None, missing=False)


def same_board_plays(loaded: LoadedCorpus, dialog_id: str, round: Optional[int]) -> list[tuple[str, int]]:
    """Other (dialog, round) plays of the board played in ``dialog_id``'s ``round``; [] where the corpus has no
    such notion (an optional capability of the corpus contract)."""
    plays = optional(package_of(loaded), "same_board_plays")
    return plays(loaded, dialog_id, round) if plays else []


def snapshot_png(loaded, dialog_id: str, step: int, round_number: Optional[int]) -> bytes:
    """The picture of a state as PNG bytes (for ``cached.derived``): encoded once per step, so that a rerun
    unpickles a small PNG rather than a raw image and ``st.image`` sends the bytes as they are (the same
    bytes keep the same URL, which the browser has cached) instead of encoding the image on every run."""
    buffer = io.BytesIO()
    snapshot(loaded, dialog_id, step, round_number).save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()
