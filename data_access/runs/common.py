"""The run-file reading every corpus's scoring shares now lives below the corpus packages, in ``scoring.lines``;
this name stays for the modules that import it from here (the coding's model-label import)."""
from __future__ import annotations

from ..scoring.lines import *  # noqa: F403
from ..scoring.lines import RUN_SCHEMA_VERSION, RUN_SUFFIXES, Lines, Tally, json_lines, prf, run_name  # noqa: F401
