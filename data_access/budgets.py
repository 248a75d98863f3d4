"""What one input may cost: the size and line budget of every kind of file the dashboard reads.

Every reader takes its limits from here (``docs/hardening.md`` has the same table with the reasons), so
that a small hostile file cannot hold a server thread or its memory: a file over its byte budget is refused
before it is read, gzip data is decompressed in pieces and refused as soon as it passes the byte or the line
budget (never after inflating it whole), and whatever a reader skips is kept in a bounded list
(``common.SkippedRecords``: the first ``SKIPPED_KEPT`` records and the count of all of them). So the memory
of reading one input is bounded by its byte budget, not by how many lines it has. Standard library only.

The real files, for scale: CoDraw_1_0.json 155 MB (11 MB gzip, 9,993 dialogs); the largest A Game Of
Sorts file 1 MB; a Minecraft game file about 1.2 MB; a CoDraw run of every round 77,502 lines; the
published layers 0.3 MB (gos-mentions, 1,086 lines) and 2.1 MB (icr-codraw-data.tsv, 13,728 lines); a
codebook a few kB with a handful of labels.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

KiB = 1 << 10
MiB = 1 << 20
GiB = 1 << 30

# How many skipped records a reader keeps (with the count of all of them): the Data and Runs pages and
# the CLIs' ``skipped`` list show these, ``skipped_total`` says how many there were.
SKIPPED_KEPT = 1000


@dataclass(frozen=True)
class Budget:
    """The limits of one kind of input: bytes on disk and after decompression, and lines."""

    kind: str
    what: str  # how messages name such a file ("run file")
    max_bytes: int  # the file as stored, and its content after gzip decompression
    max_lines: int  # newline-separated lines (a one-document JSON file counts its line breaks too)
    reason: str  # why this much, for the documentation
    max_memory: Optional[int] = None  # peak memory of the process reading one such input (tested), if budgeted


# A corpus is configured by whoever runs the app, so its budgets are generous (see safe_io.LIMITS, per
# file of each corpus format); runs, layers, codebooks and uploads may come from any visitor.
CORPUS = Budget("corpus", "corpus file", 4 * GiB, 20_000_000,
                "per file format in safe_io.LIMITS; 4 GB for the single CoDraw file (ten times the real corpus "
                "is 1.5 GB), 256 MB for one JSON Lines file")  # memory: measured, see docs/hardening.md
# A JSON Lines run is read as a stream (its rows and one line in memory); a run that is one JSON document (the
# CoDraw corpus layout) is held whole and, for a moment, its decompressed pieces before they are joined: about
# twice the byte budget, plus the interpreter with pandas, pyarrow and the corpus (about 0.3 GB for a demo).
RUN_BYTES_MEMORY = 512 * MiB
RUN = Budget("run", "run file", RUN_BYTES_MEMORY, 1_000_000,
             "a CoDraw run in the corpus layout is the corpus file (155 MB); the longest JSON Lines run, "
             "every CoDraw round, has 77,502 lines", max_memory=3 * RUN_BYTES_MEMORY)
LAYER = Budget("layer", "layer file", 64 * MiB, 500_000,
               "the published layers are 0.3 MB and 2.1 MB with 1,086 and 13,728 lines", max_memory=768 * MiB)
CODEBOOK = Budget("codebook", "codebook file", 1 * MiB, 20_000,
                  "a codebook of the most labels allowed, each with a description of 2,000 characters, is 0.4 MB",
                  max_memory=384 * MiB)
UPLOAD = Budget("upload", "uploaded run file", 200 * MiB, RUN.max_lines,
                "Streamlit's own upload limit (server.maxUploadSize, 200 MB); once saved it is a run file "
                "and its content has the run budget", max_memory=3 * RUN_BYTES_MEMORY)

MODEL_LABELS = Budget("model-labels", "model labels file", 64 * MiB, 500_000,
                      "one line per coded item: every CoDraw round (77,502) with a few labels and spans each is "
                      "about 20 MB; the line budget is the layers' (the published ones have at most 13,728)",
                      max_memory=1 * GiB)
# One line of a model labels file is one coded item (a unit: model, dialog, round, step), so these bound the labels
# per unit too. A line past one of them is skipped with its reason (a line over MODEL_LINE_BYTES before it is
# parsed); the file's other lines are imported.
MODEL_LINE_BYTES = 1 * MiB  # a line of 1,000 spans with referents is about 150 kB
MAX_SPANS_PER_LINE = 1000  # a CoDraw step has two utterances of a few dozen words
MAX_REFERENTS = 1000  # per label or span: a CoDraw scene has at most 58 clip art, a Minecraft target a few hundred blocks
MAX_MODELS_PER_FILE = 100  # each model is a coder of its own on the Agreement page

# A run's sidecar (``<run>.meta.json``) holds four short strings; its size is checked before it is read (a 1.5 GB
# one was read whole before 64 kB of it was kept), and each field is cut (``leaderboard.META_MAX_CHARS``).
SIDECAR = Budget("sidecar", "run sidecar", 1 * MiB, 20_000,
                 "four strings of at most 2,000 characters each (cut there), about 8 kB even pretty-printed; room for "
                 "a sidecar with a long description, which is cut rather than refused", max_memory=384 * MiB)

BUDGETS = {b.kind: b for b in (CORPUS, RUN, LAYER, CODEBOOK, UPLOAD, MODEL_LABELS, SIDECAR)}

# A codebook is shown as one button per label on every Replay step, so its size is counted in labels too.
MAX_LABELS = 200
MAX_LABEL_NAME = 80  # characters
MAX_DESCRIPTION = 2000  # characters, of a label's or a codebook's description

# A deep link holds a handful of parameters; more than this is no link of the app's (said, then ignored).
MAX_LINK_PARAMETERS = 1000

# Streamlit's upload endpoint keeps every uploaded file in the server's memory while its widget holds it, so
# what uploads may hold is budgeted per session and in all (ui/server/upload_guard.py; docs/hardening.md, "The upload
# endpoint"). One request may carry one upload plus Streamlit's multipart framing (1 MB): the proxy's
# client_max_body_size (deploy/nginx.conf) is this.
UPLOAD_FRAMING_BYTES = 1 * MiB
UPLOAD_REQUEST_BYTES = UPLOAD.max_bytes + UPLOAD_FRAMING_BYTES
# A session has three uploaders (a run on the Runs page, model labels, a codebook), each of which may hold its
# largest file at once.
UPLOAD_SESSION_BYTES = UPLOAD.max_bytes + MODEL_LABELS.max_bytes + CODEBOOK.max_bytes + UPLOAD_FRAMING_BYTES
# Two such sessions at their most: a lab's few uploaders rarely hold large files at the same time, and the server
# stays within about half a GB of uploads beside its corpora.
UPLOAD_TOTAL_BYTES = 2 * UPLOAD_SESSION_BYTES

# The SQL console (data_access/sql_console.py; docs/slices.md, "The SQL console"): one query runs in a process of its
# own, which is killed at its time limit or on Stop (DuckDB checks an interrupt only between batches, so a slow
# function such as levenshtein on long strings ran on for half a minute past an interrupt). What a result may send
# back is bounded in rows and in bytes, so neither the server nor the command's JSON holds more than this.
SQL_TIMEOUT_S = 10.0  # the default time limit of a query (the command's --timeout)
SQL_MAX_ROWS = 10_000  # rows a result returns (the console's grid and the command's JSON)
SQL_COUNT_LIMIT = 1_000_000  # rows a result is counted up to; past it row_count_complete is false
SQL_MAX_QUERY_CHARS = 20_000
SQL_CELL_CHARS = 4_000  # a longer value is cut here and marked; the longest in the real corpora has 1,100
SQL_RESULT_BYTES = 8 * MiB  # the rows of a result as compact JSON; 10,000 rows of CoDraw's utterances are 1.3 MB
SQL_ID_CHARS = 64 * KiB  # the distinct dialog_id values kept to make a slice of (a slice holds at most 16,000 characters)
SQL_MEMORY_LIMIT = "1GB"  # DuckDB's own limit, in the query's process
SQL_PROCESS_MEMORY = 3 * GiB  # the query's process's address space (DuckDB's limit, Python and the Arrow batches)

# A contrast (data_access/slices/contrast.py; the command's --resamples): its bootstrap resamples and permutations are
# each held whole (an array of that many means), so their count is bounded; 2,000 is the default.
CONTRAST_MAX_RESAMPLES = 100_000
