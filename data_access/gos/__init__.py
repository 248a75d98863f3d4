"""A Game Of Sorts (LREC 2022): two players rank nine images per round by locking the same image.

Corpus-module contract (see ``data_access/corpora.py``): ``SCHEMA_VERSION``, ``DEMO_VERSION``,
``build_frames``, ``summarize``, ``write_demo``, ``demo_source``. Also exported for the pages: the replay
view model (``round_view``, ``round_steps``, ``dialog_labels``), the board renderer (``render_board``)
and the ranking-agreement measures (``pairwise_agreement``, ``rank_sums``, ``kendall_tau``, ``spearman_rho``).
"""
from .agreement import kendall_tau, pairwise_agreement, rank_sums, spearman_rho
from .demo import demo_source, write_demo
from .frames import build_frames
from .ranking import LockEvent, replay_locks
from .render import render_board
from .summary import summarize
from .view import RoundView, dialog_labels, round_steps, round_view, snapshot, step_count

SCHEMA_VERSION = 1
DEMO_VERSION = 1

__all__ = [
    "SCHEMA_VERSION", "DEMO_VERSION", "build_frames", "summarize", "write_demo", "demo_source",
    "round_view", "round_steps", "step_count", "snapshot", "dialog_labels", "RoundView", "render_board", "replay_locks", "LockEvent",
    "pairwise_agreement", "rank_sums", "kendall_tau", "spearman_rho",
]
