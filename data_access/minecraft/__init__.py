"""Minecraft Collaborative Building (Narayan-Chen et al. 2019; BAP: Jayannthan et al., ACL 2020), as
shipped in ``prashant-jayan21/minecraft-bap-models``: reading the game logs and gold structures into frames,
aligning builds to their targets, deriving Builder Action Prediction samples, the replay view model, 3-D and
isometric renderers and a generated demo corpus. See FORMATS.md part B for the format and its quirks.

Implements ``data_access.contract.CorpusPackage``.
"""
from __future__ import annotations

from .bap import bap_jsonl_bytes, export_jsonl, iter_bap_samples, sample_dicts
from .blocks import Alignment, best_alignment, block_f1, parse_gold_xml, perspective_coordinates
from .demo import demo_source, write_demo
from .frames import build_frames
from .summary import summarize
from .view import ReplayStep, dialog_labels, replay_step, snapshot, step_count

NAME = "minecraft"
DEMO_VERSION = 1
REPLAY_IN_ROUNDS = False  # no rounds: a replay step is a message
FRAMES = ("dialogs", "utterances", "actions", "states", "gold", "bap_samples")

__all__ = [
    "NAME", "DEMO_VERSION", "REPLAY_IN_ROUNDS", "FRAMES", "dialog_labels", "ReplayStep", "build_frames", "summarize", "write_demo", "demo_source",
    "iter_bap_samples", "sample_dicts", "export_jsonl", "bap_jsonl_bytes", "best_alignment", "block_f1", "Alignment",
    "parse_gold_xml", "perspective_coordinates", "replay_step", "step_count", "snapshot",
]
