"""Minecraft Collaborative Building (Narayan-Chen et al. 2019; BAP: Jayannthan et al., ACL 2020), as
shipped in ``prashant-jayan21/minecraft-bap-models``: reading the game logs and gold structures into frames,
aligning builds to their targets, deriving Builder Action Prediction samples, the replay view model, 3-D and
isometric renderers and a generated demo corpus. See FORMATS.md part B for the format and its quirks.

Corpus contract (``data_access.corpora``): SCHEMA_VERSION, DEMO_VERSION, build_frames, summarize,
write_demo, demo_source.
"""
from __future__ import annotations

from .bap import bap_jsonl_bytes, export_jsonl, iter_bap_samples, sample_dicts
from .blocks import Alignment, best_alignment, block_f1, parse_gold_xml, perspective_coordinates
from .demo import demo_source, write_demo
from .frames import build_frames
from .summary import summarize
from .view import replay_step, snapshot, step_count

SCHEMA_VERSION = 2  # 2: "Mission has started." anywhere is no utterance; placements from the empty world
DEMO_VERSION = 1

__all__ = [
    "SCHEMA_VERSION", "DEMO_VERSION", "build_frames", "summarize", "write_demo", "demo_source",
    "iter_bap_samples", "sample_dicts", "export_jsonl", "bap_jsonl_bytes", "best_alignment", "block_f1", "Alignment",
    "parse_gold_xml", "perspective_coordinates", "replay_step", "step_count", "snapshot",
]
