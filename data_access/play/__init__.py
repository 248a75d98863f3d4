"""Playing a recorded dialog (issue 49, docs/play.md): one person plays one role of a recorded dialog against its
recorded partner, step by step, and the play is a run by a person.

- ``game``: what is played and how a step is taken: the corpus's play rules (``contract.PlayRules``, the optional
  ``play_rules()`` of a corpus package), a step's move checked by them and saved in the store
  (``data_access.store.PlayStore``: a compare-and-set on the step, so two tabs cannot fork a play).
- ``scoring``: a play scored exactly as the corpus scores a model run and the humans: its moves written in the
  corpus's run format (``PlayRules.run_lines``) and read and scored by the corpus's own ``RunScoring``, the very
  code that scores every run file.
- ``runs``: plays as runs: the finished plays of each person written as one run file ``person:<name>`` into the
  plays folder that the run loader lists (``data_access.runs.plays_dir``), so the Runs page, its leaderboard, the
  Replay's run panels, worst cases and ``score(RUN)`` slices take them as they take a model's run.
"""
from __future__ import annotations

from .game import PlayUnavailable, rules_of, submit_step
from .runs import PERSON_PREFIX, person_run_name, play_file_name, run_text, write_person_runs
from .scoring import PlayScore, score_moves, scored_run

__all__ = ["PERSON_PREFIX", "PlayScore", "PlayUnavailable", "person_run_name", "play_file_name", "rules_of",
           "run_text", "score_moves", "scored_run", "submit_step", "write_person_runs"]
