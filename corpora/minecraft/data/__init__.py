"""Minecraft Collaborative Building (Narayan-Chen et al. 2019; BAP: Jayannthan et al., ACL 2020), as
shipped in ``prashant-jayan21/minecraft-bap-models``: reading the game logs and gold structures into frames,
aligning builds to their targets, deriving Builder Action Prediction samples, the replay view model, 3-D and
isometric renderers and a generated demo corpus. See FORMATS.md part B for the format and its quirks.

Implements ``data_access.contract.CorpusPackage``.
"""
from __future__ import annotations

from pathlib import Path

from corpora.minecraft.data.bap import bap_jsonl_bytes, export_jsonl, iter_bap_samples, sample_dicts
from corpora.minecraft.data.blocks import Alignment, best_alignment, block_f1, parse_gold_xml, perspective_coordinates
from corpora.minecraft.data.demo import demo_source, write_demo
from corpora.minecraft.data.frames import build_frames
from corpora.minecraft.data.summary import summarize
from corpora.minecraft.data.view import ReplayStep, dialog_labels, replay_step, snapshot, step_count
from dialogue_dashboard.plugin import FeatureText, Provenance, ReferentPlane

NAME = "minecraft"
TITLE = "Minecraft Collaborative Building"
SHORT_TITLE = "Minecraft"
DEMO_VERSION = 1
REPLAY_IN_ROUNDS = False  # no rounds: a replay step is a message
STEP_UNIT = "message"
EXPORT_STEP_UNIT = "utterance"
FRAMES = ("dialogs", "utterances", "actions", "states", "gold", "bap_samples")
BROWSE_COLUMNS = {
    "config": "The target structure (gold configuration)",
    "builder": "The Builder's player id",
    "architect": "The Architect's player id",
    "placements": "Blocks placed, counted from the empty world",
    "removals": "Blocks removed",
    "outcome_match": "Whether the final build equals the target (best rotation and x/z shift)",
    "outcome_f1": "Block F1 of the final build against the target at that alignment",
}
DATA_VARIABLE = "MINECRAFT_DATA"
ASSET_VARIABLE = None  # the build is drawn from the logged blocks
EXPORT_BUDGET = 5_000_000  # one game's HTML replay
LAYERS: tuple[str, ...] = ()
REFERENT_PLANE = ReferentPlane(x_range=None, y_range=None, show_names=True)  # fitted to the structure
FEATURE_TEXTS = {
    "outcome_match": FeatureText("exact build", "exact build", "not an exact build"),
    # the step features (``steps.step_features``)
    "net_change": FeatureText("net change in blocks"),
    "builder_question": FeatureText("Builder's question", "the Builder asks a question", "no Builder question"),
    "words": FeatureText("words"),
    "config": FeatureText("target structure"),
}
# What a contrast pairs games by where one target structure was built more than once (contract.OptionalCapabilities).
PAIRED_ITEMS = {"dialog": ("config", "target structure"), "step": ("config", "target structure")}
# The frames an analysis page on a step slice cuts to its moments (contract.OptionalCapabilities).
STEP_FRAMES = {"utterances": ("dialog_id", None, "turn"), "actions": ("game", None, "turn")}
PROVENANCE = Provenance(
    obtain=("The Minecraft Dialogue Corpus as the "
            "[prashant-jayan21/minecraft-bap-models](https://github.com/prashant-jayan21/minecraft-bap-models) "
            "repository ships it in `data/`: `logs/` (with `splits.json`) and `gold-configurations/`. Set "
            "`MINECRAFT_DATA` to that `data` folder (the augmented layout in `data/augmented` works too)."),
    assets="The build is drawn from the logged blocks; no screenshots are needed.",
    licence="for research use, as its release states",
    citations=(
        """@inproceedings{narayan-chen-etal-2019-collaborative,
  title = {Collaborative Dialogue in {M}inecraft},
  author = {Narayan-Chen, Anjali and Jayannavar, Prashant and Hockenmaier, Julia},
  booktitle = {Proceedings of the 57th Annual Meeting of the Association for Computational Linguistics},
  year = {2019},
  pages = {5405--5415},
  url = {https://aclanthology.org/P19-1537}
}""",
        """@inproceedings{jayannavar-etal-2020-learning,
  title = {Learning to execute instructions in a {M}inecraft dialogue},
  author = {Jayannavar, Prashant and Narayan-Chen, Anjali and Hockenmaier, Julia},
  booktitle = {Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics},
  year = {2020},
  pages = {2589--2602},
  url = {https://aclanthology.org/2020.acl-main.232}
}""",
    ),
)


def source_root(path: Path) -> Path:
    """The corpus root (``<root>/logs`` given means its root)."""
    from corpora.minecraft.data.reader import find_root

    return find_root(path)


def referents(loaded, dialog_id: str, round, turn):
    """What a span can refer to at this place; see ``corpora.minecraft.data.referent_points``."""
    from corpora.minecraft.data.referent_points import referents as find

    return find(loaded, dialog_id, round, turn)


def referent_background(loaded, dialog_id: str, round, turn):
    from corpora.minecraft.data.referent_points import referent_background as picture

    return picture(loaded, dialog_id, round, turn)


def step_features(loaded):
    """One row per replay step (a message with the Builder's actions after it); see
    ``corpora.minecraft.data.steps``."""
    from corpora.minecraft.data.steps import step_features as features

    return features(loaded)


def run_scoring():
    """Builder Action Prediction runs, scored by net-action F1; see ``corpora.minecraft.data.scoring``."""
    from corpora.minecraft.data import scoring

    return scoring


def play_rules():
    """Playing the Builder of a recorded game, a BAP sample a step; see ``corpora.minecraft.data.play``."""
    from corpora.minecraft.data import play

    return play


def live_rules():
    """Two people playing the game live, and their games written as game logs; see ``corpora.minecraft.data.live``."""
    from corpora.minecraft.data import live

    return live


__all__ = [
    "NAME", "TITLE", "SHORT_TITLE", "DEMO_VERSION", "REPLAY_IN_ROUNDS", "STEP_UNIT", "EXPORT_STEP_UNIT", "FRAMES",
    "BROWSE_COLUMNS", "DATA_VARIABLE", "ASSET_VARIABLE", "PROVENANCE", "EXPORT_BUDGET", "LAYERS", "FEATURE_TEXTS", "PAIRED_ITEMS", "STEP_FRAMES", "step_features", "source_root", "run_scoring", "play_rules", "live_rules", "REFERENT_PLANE", "referents", "referent_background", "dialog_labels", "ReplayStep", "build_frames", "summarize", "write_demo", "demo_source",
    "iter_bap_samples", "sample_dicts", "export_jsonl", "bap_jsonl_bytes", "best_alignment", "block_f1", "Alignment",
    "parse_gold_xml", "perspective_coordinates", "replay_step", "step_count", "snapshot",
]
