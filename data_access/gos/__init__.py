"""A Game Of Sorts (LREC 2022): two players rank nine images per round by locking the same image.

Implements ``data_access.contract.CorpusPackage`` (and the optional ``same_board_plays``). Also exported for the pages: the replay
view model (``replay_step``, ``round_steps``, ``dialog_labels``), the board renderer (``render_board``)
and the ranking-agreement measures (``ranking_agreement``, ``pairwise_agreement``, ``board_agreement``, ``rank_sums``).
"""
from .agreement import board_agreement, pairwise_agreement, rank_sums, ranking_agreement
from .demo import demo_source, write_demo
from .frames import build_frames
from .ranking import LockEvent, replay_locks
from .render import render_board
from .summary import summarize
from .view import ReplayStep, dialog_labels, replay_step, round_steps, same_board_plays, snapshot, step_count

NAME = "gos"
DEMO_VERSION = 1
REPLAY_IN_ROUNDS = True  # each of the four rounds is replayed on its own; links carry round=
FRAMES = ("games", "boards", "images", "dialogs", "rounds", "messages", "lock_events", "ranks", "layouts", "survey",
          "steps", "utterances")

__all__ = [
    "NAME", "DEMO_VERSION", "REPLAY_IN_ROUNDS", "FRAMES", "same_board_plays", "build_frames", "summarize", "write_demo", "demo_source",
    "replay_step", "round_steps", "step_count", "snapshot", "dialog_labels", "ReplayStep", "render_board", "replay_locks", "LockEvent",
    "ranking_agreement", "pairwise_agreement", "board_agreement", "rank_sums",
]
