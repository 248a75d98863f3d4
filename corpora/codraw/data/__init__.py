"""CoDraw (Kim et al., ACL 2019): a Teller describes a clip-art scene, a Drawer recreates it.

Implements ``data_access.contract.CorpusPackage``: reading the files (``reader``), the frames (``frames``),
the vectorised scene parser (``scenes``), both scene-similarity metrics (``metrics``), the scene renderer
(``render``), the replay view model (``view``), the corpus summary (``summary``) and the demo corpus (``demo``).

Everything heavy is imported on first use only: a start from the Parquet cache never needs the parser,
and the CLI can check for a cache hit (``corpora.frames_version``) before numpy and pandas are loaded.
"""
from __future__ import annotations

from pathlib import Path

from corpora.codraw.data.transcript import transcript_notes
from dialogue_dashboard.plugin import FeatureText, ProgressCallback, Provenance, ReferentPlane, no_progress

NAME = "codraw"
TITLE = "CoDraw"
SHORT_TITLE = "CoDraw"
DEMO_VERSION = 1
REPLAY_IN_ROUNDS = False  # a replay step is a round
STEP_UNIT = "round"
EXPORT_STEP_UNIT = "round"
FRAMES = ("dialogs", "rounds", "cliparts", "utterances")
BROWSE_COLUMNS = {
    "image_id": "The Abstract Scenes image the Teller describes",
    "peek_round": "The round before which the Teller peeked at the Drawer's canvas (empty: never peeked)",
    "final_score": "The paper's final scene-similarity metric (max 5) of the last non-empty drawing",
    "final_score_original": "The original 7-term metric of the last non-empty drawing",
    "score_before_peek": "The paper's metric of the last drawing before the peek",
}
DATA_VARIABLE = "CODRAW_DATA"
ASSET_KIND = "clipart"  # its images' flag: `dialogue-dashboard serve --codraw-clipart`
ASSET_VARIABLE = "CODRAW_CLIPART"
EXPORT_BUDGET = 1_000_000  # one dialog's HTML replay
LAYERS = ("codraw-icr",)
REFERENT_PLANE = ReferentPlane(x_range=(0, 500), y_range=(400, 0), show_names=False)  # the canvas, names on hover
FEATURE_TEXTS = {
    "peek_gain": FeatureText("peek gain", help="final score − score of the last drawing before the Teller's peek "
                                               "(the peek chart's value); empty without a peek"),
    "crs": FeatureText("CRs", "has a CR", "no CR", help="clarification requests of the published layer aligned to the "
                                                        "dialog; empty where no row of the layer is aligned to it"),
    "annotated_rounds": FeatureText("rounds in the CR layer"),
    "final_score": FeatureText("final score"),
    # the step features (``steps.step_features``; the layer's ``cr``)
    "round_score": FeatureText("score after the round", help="the paper's metric of the canvas after the round"),
    "score_change": FeatureText("score change", help="score after the round − score of the canvas before it"),
    "peek": FeatureText("peeked just before", "the Teller peeked just before it", "no peek just before"),
    "after_peek": FeatureText("after the peek", "at or after the peek", "before the peek"),
    "added": FeatureText("clip art added"),
    "moved": FeatureText("clip art moved"),
    "changed": FeatureText("clip art changed in place"),
    "removed": FeatureText("clip art removed"),
    "drawn": FeatureText("clip art on the canvas"),
    "teller_words": FeatureText("Teller's words"),
    "drawer_words": FeatureText("Drawer's words"),
    "cr": FeatureText("CR", "the Drawer asks a CR", "no CR in the round",
                      help="the round's Drawer message is a clarification request of the published layer; empty where "
                           "the layer has no row aligned to the round"),
}
# What a contrast pairs by where the same item was played more than once (contract.OptionalCapabilities).
PAIRED_ITEMS = {"dialog": ("image_id", "scene"), "step": ("image_id", "scene")}
# The frames an analysis page on a step slice cuts to its moments (contract.OptionalCapabilities).
STEP_FRAMES = {"rounds": ("dialog_id", None, "round"), "utterances": ("dialog_id", None, "turn")}
PROVENANCE = Provenance(
    obtain=("The dialogs: **CoDraw v1.0** (`CoDraw_1_0.json`, 149 MB), linked under *Download* in the "
            "[facebookresearch/CoDraw](https://github.com/facebookresearch/CoDraw) repository. Set `CODRAW_DATA` "
            "to that file (or its `.json.gz`), or to the folder of per-dialog files its `script/preprocess.py` writes."),
    assets=("The clip art: the `Pngs/` folder of [Abstract Scenes v1.1](https://vision.ece.vt.edu/clipart/) "
            "(Zitnick & Parikh, 2013). Set `CODRAW_CLIPART` to it; without it the canvases are drawn art-free."),
    licence="CC BY-NC 4.0",
    citations=(
        """@inproceedings{kim-etal-2019-codraw,
  title = {{CoDraw}: Collaborative Drawing as a Testbed for Grounded Goal-driven Communication},
  author = {Kim, Jin-Hwa and Kitaev, Nikita and Chen, Xinlei and Rohrbach, Marcus and Zhang, Byoung-Tak and
            Tian, Yuandong and Batra, Dhruv and Parikh, Devi},
  booktitle = {Proceedings of the 57th Annual Meeting of the Association for Computational Linguistics},
  year = {2019},
  pages = {6495--6513},
  url = {https://aclanthology.org/P19-1651}
}""",
    ),
)


def source_root(path: Path) -> Path:
    """The file or folder given is what the loader reads."""
    return Path(path)


def referents(loaded, dialog_id: str, round, turn):
    """What a span can refer to at this place; see ``corpora.codraw.data.referent_points``."""
    from corpora.codraw.data.referent_points import referents as find

    return find(loaded, dialog_id, round, turn)


def referent_background(loaded, dialog_id: str, round, turn):
    from corpora.codraw.data.referent_points import referent_background as picture

    return picture(loaded, dialog_id, round, turn)


def annotation_layer(name: str):
    """The module of the corpus's published layer ``name`` (``contract.AnnotationLayer``): the instruction
    clarification requests (``icr_layer``), imported when first asked for (it needs pyarrow)."""
    from corpora.codraw.data import icr_layer

    if name != icr_layer.LAYER:
        raise ValueError(f"{TITLE} has no layer {name!r}; its layers: {', '.join(LAYERS)}")
    return icr_layer


def dialog_features(loaded):
    """The slice features the CoDraw scores page computes: ``peek_gain``, the peek chart's gain (final score −
    score of the last drawing before the peek), by dialog_id (dialogs without a peek are absent)."""
    import pandas as pd

    from corpora.codraw.data import figures

    table = figures.peek_table(loaded.dialogs)
    return pd.DataFrame({"peek_gain": table["gain"].to_numpy(dtype=float)},
                        index=pd.Index(table["dialog_id"].astype(str), name="dialog_id"))


def step_features(loaded):
    """One row per round (a replay step) with the round's score and its change, the peek, the clip art added,
    moved, changed and removed, and the messages' lengths; see ``corpora.codraw.data.steps``."""
    from corpora.codraw.data.steps import step_features as features

    return features(loaded)


def run_scoring():
    """Drawer models' runs, scored with both scene-similarity metrics; see ``corpora.codraw.data.scoring``."""
    from corpora.codraw.data import scoring

    return scoring


def play_rules():
    """Playing the Drawer of a recorded dialog, a round a step; see ``corpora.codraw.data.play``."""
    from corpora.codraw.data import play

    return play


def live_rules():
    """Two people playing CoDraw live, and their games written as the corpus's JSON; see ``corpora.codraw.data.live``."""
    from corpora.codraw.data import live

    return live


def write_demo(folder: Path) -> None:
    """Write the generated demo corpus; see ``corpora.codraw.data.demo``."""
    from corpora.codraw.data.demo import write_demo as write

    write(folder)


def demo_source(folder: Path) -> Path:
    from corpora.codraw.data.demo import demo_source as source

    return source(folder)


def summarize(loaded) -> dict:
    """The figures the CLI prints; see ``corpora.codraw.data.summary``."""
    from corpora.codraw.data.summary import summarize as summary

    return summary(loaded)


def build_frames(path: Path, progress: ProgressCallback = no_progress):
    """Parse a CoDraw source into its frames; see ``corpora.codraw.data.frames.build_frames``."""
    from corpora.codraw.data.frames import build_frames as build

    return build(path, progress)


def step_count(loaded, dialog_id: str, round=None) -> int:
    """Replay steps of a dialog: its rounds."""
    from corpora.codraw.data.view import step_count as count

    return count(loaded, dialog_id, round)


def snapshot(loaded, dialog_id: str, step: int, round=None):
    """Target and canvas after round ``step`` side by side (for ``data_access.snapshots``)."""
    from corpora.codraw.data.view import snapshot as picture

    return picture(loaded, dialog_id, step, round)


def replay_step(loaded, dialog_id: str, step: int, round=None):
    """The replay view model of round ``step``; see ``corpora.codraw.data.view.replay_step``."""
    from corpora.codraw.data.view import replay_step as view

    return view(loaded, dialog_id, step, round)


def dialog_labels(loaded) -> dict[str, str]:
    """dialog_id → "test_00009 · test · 7 rounds"."""
    return {row.dialog_id: f"{row.dialog_id} · {row.split} · {row.n_rounds} rounds"
            for row in loaded.dialogs[["dialog_id", "split", "n_rounds"]].itertuples(index=False)}


__all__ = ["NAME", "TITLE", "SHORT_TITLE", "DEMO_VERSION", "REPLAY_IN_ROUNDS", "STEP_UNIT", "EXPORT_STEP_UNIT", "FRAMES",
           "BROWSE_COLUMNS", "DATA_VARIABLE", "ASSET_VARIABLE", "PROVENANCE", "EXPORT_BUDGET", "LAYERS", "source_root", "REFERENT_PLANE", "referents", "referent_background",
           "run_scoring", "play_rules", "live_rules", "build_frames", "summarize", "write_demo", "demo_source", "dialog_labels", "step_count",
           "FEATURE_TEXTS", "dialog_features", "step_features", "PAIRED_ITEMS", "STEP_FRAMES",
           "replay_step", "snapshot", "transcript_notes"]
