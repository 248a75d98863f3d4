"""What the replay shows of a Minecraft run at one utterance (pure; no streamlit): the BAP sample of the step
(if any), the model's predicted structure with correct, missing and extra blocks marked, beside the human's
(gold) structure, with net-action P/R/F1. Both structures are drawn on the server as isometric pictures in one
frame (what the replay shows first: an image costs a browser far less than a WebGL scene); the interactive 3D
figures of the same marks are built only when asked for (``model_figure``, ``gold_figure``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence

from dialogue_dashboard.plugin import LoadedCorpus, LoadedRun


@dataclass
class MinecraftRunView:
    dialog_id: str
    turn: int
    run: str
    sample_id: Optional[int]
    # the marks (``block_marks``): the model's structure against the gold one, and the gold structure alone
    marks: dict = field(default_factory=dict)
    gold_marks: dict = field(default_factory=dict)
    # both drawn on the server (isometric palette PNGs in one frame, so a cell sits at the same place in either)
    model_png: Optional[bytes] = None
    gold_png: Optional[bytes] = None
    scores: dict = field(default_factory=dict)  # tp, fp, fn, precision, recall, f1, infeasible
    counts: dict = field(default_factory=dict)  # correct, missing, extra blocks
    note: str = ""
    sample_turns: list = field(default_factory=list)  # (sample_id, turn) of the run's samples in this game


NET_ACTION_HELP = ("Net actions of this BAP sample: TP the model's block placements and removals that the human's "
                   "next actions also make, FP the model's others, FN the human's the model did not make. They score "
                   "the change, not the structure.")


def scores_and_marks(view: MinecraftRunView) -> str:
    """Why the net-action counts beside the picture and the blocks marked in it differ: one counts this sample's
    actions, the other every block of the structure after them (those standing before the sample included)."""
    scores, counts = view.scores, view.counts
    return (f"Two measures: TP / FP / FN ({scores['tp']} / {scores['fp']} / {scores['fn']}) count this sample's net "
            f"actions against the human's; the picture counts blocks of the whole structure after them, the "
            f"{counts['correct']} correct including blocks that stood before the sample, so they need not agree.")


def block_marks(initial: dict, predicted: dict, gold: dict) -> dict[str, list[tuple]]:
    """Blocks of the predicted end structure marked against the gold end structure."""
    def blocks(config):
        return {(x, y, z, c) for (x, y, z), c in config.items()}
    p, g = blocks(predicted), blocks(gold)
    return {"correct": sorted(p & g), "missing": sorted(g - p), "extra": sorted(p - g)}


def marked_structure_figure(marks: dict[str, list[tuple]], title: str):
    """Correct blocks solid in their colour, missing ones as translucent grey ghosts, extra ones red-edged."""
    from corpora.minecraft.data.render import edge_trace, framed_figure, mesh_trace, scene_bounds, solid_traces

    traces = list(solid_traces(marks["correct"], " correct"))
    if marks["correct"]:
        traces.append(edge_trace(marks["correct"], "rgba(40,40,40,0.55)", 1.5, "edges"))
    if marks["extra"]:
        traces += solid_traces(marks["extra"], " extra")
        traces.append(edge_trace(marks["extra"], "#e0218a", 7, f"extra ({len(marks['extra'])})"))
    if marks["missing"]:
        traces.append(mesh_trace(marks["missing"], "#9a9a9a", f"missing ({len(marks['missing'])})", opacity=0.25))
        traces.append(edge_trace(marks["missing"], "rgba(120,120,120,0.9)", 2, "missing"))
    points = [b[:3] for group in marks.values() for b in group] or [(0, 1, 0)]
    return framed_figure(traces, scene_bounds(points), title)


def marked_structure_png(marks: dict[str, list[tuple]], frame_of: Sequence[tuple] = ()) -> bytes:
    """The marks as the replay's server-drawn picture: correct and extra blocks solid, extra ones outlined in
    black, missing ones as outlined ghosts (one image per run, cheap beside a WebGL scene). The picture covers
    the cells of ``frame_of`` too, so that pictures of several structures share one frame."""
    from corpora.minecraft.data.render import PICTURE_CELL, picture_png, snapshot_image

    frame = [(b[0], b[1], b[2], "blue") for b in frame_of]
    return picture_png(snapshot_image([*marks["correct"], *marks["extra"]], ghosts=marks["missing"],
                                      highlight=marks["extra"], cell=PICTURE_CELL, frame_of=frame, mode="P"))


def model_figure(view: MinecraftRunView):
    """The interactive 3D figure of the model's marked structure (None without a sample here)."""
    return marked_structure_figure(view.marks, f"Model ({view.run}): predicted structure") if view.marks else None


def gold_figure(view: MinecraftRunView):
    """The interactive 3D figure of the human's (gold) structure after the sample (None without a sample here)."""
    return marked_structure_figure(view.gold_marks, "Human (gold) structure after the sample") if view.gold_marks else None


def minecraft_view(corpus: LoadedCorpus, run: LoadedRun, dialog_id: str, turn: int) -> MinecraftRunView:
    from corpora.minecraft.data.blocks import config_from_json

    samples = run.frames["samples"]
    mine = samples[samples["game"] == dialog_id]
    bap = corpus.frames["bap_samples"]
    turns = dict(zip(bap.loc[bap["game"] == dialog_id, "sample_id"], bap.loc[bap["game"] == dialog_id, "turn"]))
    sample_turns = sorted((int(s), int(turns.get(s, 0))) for s in mine["sample_id"])
    here = [s for s, t in sample_turns if t == turn]
    view = MinecraftRunView(dialog_id, turn, run.name, here[0] if here else None, sample_turns=sample_turns)
    if not here:
        at_turn = [int(s) for s, t in turns.items() if int(t) == turn]
        view.note = (f"BAP sample {at_turn[0]} follows this utterance, but the run has no prediction for it."
                     if at_turn else "No BAP sample follows this utterance.")
        return view
    row = mine[mine["sample_id"] == here[0]].iloc[0]
    initial, predicted, gold = (config_from_json(row[c]) for c in ("initial", "predicted_end", "gold_end"))
    marks = block_marks(initial, predicted, gold)
    gold_marks = {"correct": sorted((x, y, z, c) for (x, y, z), c in gold.items()), "missing": [], "extra": []}
    view.marks, view.gold_marks = marks, gold_marks
    shared = [b for group in (*marks.values(), *gold_marks.values()) for b in group]  # one frame for both pictures
    view.model_png = marked_structure_png(marks, frame_of=shared)
    view.gold_png = marked_structure_png(gold_marks, frame_of=shared)
    view.scores = {k: (int(row[k]) if k in ("tp", "fp", "fn", "infeasible", "n_actions") else float(row[k]))
                   for k in ("tp", "fp", "fn", "precision", "recall", "f1", "infeasible", "n_actions")}
    view.counts = {k: len(v) for k, v in marks.items()}
    return view
