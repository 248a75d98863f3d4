"""A Game Of Sorts (LREC 2022): two players rank nine images per round by locking the same image.

Implements ``data_access.contract.CorpusPackage`` (and the optional ``same_board_plays``). Also exported for the pages: the replay
view model (``replay_step``, ``round_steps``, ``dialog_labels``), the board renderer (``render_board``)
and the ranking-agreement measures (``pairwise_agreement``, ``rank_sums``, ``kendall_tau``, ``spearman_rho``).
"""
from .agreement import kendall_tau, pairwise_agreement, rank_sums, spearman_rho
from .demo import demo_source, write_demo
from .frames import build_frames
from .ranking import LockEvent, replay_locks
from .render import render_board
from .summary import summarize
from .view import ReplayStep, dialog_labels, replay_step, round_steps, same_board_plays, snapshot, step_count

NAME = "gos"
SCHEMA_VERSION = 2
DEMO_VERSION = 1
REPLAY_IN_ROUNDS = True  # each of the four rounds is replayed on its own; links carry round=
FRAMES = ("games", "boards", "images", "dialogs", "rounds", "messages", "lock_events", "ranks", "layouts", "survey",
          "steps", "utterances")

__all__ = [
    "NAME", "SCHEMA_VERSION", "DEMO_VERSION", "REPLAY_IN_ROUNDS", "FRAMES", "same_board_plays", "build_frames", "summarize", "write_demo", "demo_source",
    "replay_step", "round_steps", "step_count", "snapshot", "dialog_labels", "ReplayStep", "render_board", "replay_locks", "LockEvent",
    "pairwise_agreement", "rank_sums", "kendall_tau", "spearman_rho",
]
