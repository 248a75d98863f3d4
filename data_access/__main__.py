"""Command line: ``python -m data_access summary <codraw|gos|minecraft> PATH`` prints one JSON object;
``python -m data_access run-summary <corpus> CORPUS_PATH RUN_PATH`` scores a model run (one JSON object);
``python -m data_access cache`` builds the Parquet caches of the configured sources ahead of a demo;
``python -m data_access layer-summary {gos-mentions|codraw-icr} CORPUS_PATH LAYER_PATH`` prints the figures of a
published annotation layer linked to its corpus (see ``data_access.layers``);
``python -m data_access words <corpus> CORPUS_PATH [--role R] [--split S] [--top N]`` prints the corpus's word
counts (``tokens``, ``types``, ``top``: ``{word, count, dialogs}``, ``skipped``; see docs/words.md);
``python -m data_access leaderboard <corpus> CORPUS_PATH RUNS_DIR`` ranks every run in a folder (one JSON object,
see ``data_access.runs.leaderboard``);
``python -m data_access sql <corpus> CORPUS_PATH QUERY [--runs DIR] [--layers DIR] [--codes STORE]`` runs one
read-only SQL query over the corpus's frames, and the runs, published layers and codes given (one JSON object:
``columns``, ``rows`` (at most 10,000 lists and 8 MB), ``row_count``, ``note`` when values or rows were cut; see
``data_access.sql_console`` and docs/slices.md). A refused or stopped query exits 2 with one stderr line.
``python -m data_access slice <corpus> CORPUS_PATH SLICE`` prints the dialogs or steps a slice keeps (``level``,
``count``, ``ids``) and ``python -m data_access contrast <corpus> CORPUS_PATH MEASURE A B`` a measure on slice A against
slice B (``measure``, ``n_a``, ``n_b``, ``mean_a``, ``mean_b``, ``diff``, ``ci_low``, ``ci_high``, ``p``, ``paired``); a
slice is its text in the grammar or ``sql:SELECT …``, B may be ``rest`` (or ``humans``); a bad slice exits 2 with one
stderr line.

``python -m data_access live-export <corpus> STORE OUT [--game ID ...] [--split S]`` writes the finished live
games of the corpus (default: all of them, a study) from the store (read as it is) into the folder OUT in the
corpus's own files and prints one JSON object (``corpus``, ``games``, ``path``: what the corpus's reader opens,
``consents``: each player's agreements to the consent text; see
docs/live-games.md). ``python -m data_access live-study <corpus> STORE --slice SLICE [--seed N] [--path P]`` creates a
study's games in the store, one per item the slice's dialogs played (``SLICE``: the grammar, or ``@ID`` a slice saved
in the store), and prints one JSON object (``corpus``, ``slice``, ``seed``, ``games``, ``invitations``: one row per
game and role, ``game_id``, ``item``, ``role``, ``token``; see docs/play.md).

Exit codes: 0 when the source loads (even with skipped records), 2 with one stderr line naming the file
when it cannot be loaded at all. Never a traceback."""
from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from pathlib import Path
from typing import Optional

from . import readahead
from .budgets import CONTRAST_MAX_RESAMPLES
from .command_inputs import naming as _naming
from .command_inputs import say as _say
from .command_inputs import sql_codes as _sql_codes
from .command_inputs import sql_layers as _sql_layers
from .command_inputs import sql_runs as _sql_runs
from .common import CORPUS_NAMES, SourceError, describe_unexpected
from .live_commands import add_commands as add_live_commands


def _say_cache_notes(*notes) -> None:
    """Say once why something was not cached (the corpus and a run in an unusable cache folder say the same)."""
    note = next((note for note in notes if note), None)
    if note:
        _say(f"note: {note}")


def _summary(args) -> int:
    from .corpora import is_cached, load_source
    from .registry import corpus_module
    from .sources import Source

    package = corpus_module(args.corpus)  # the command line is an edge: the name it is given is resolved once
    source = Source(args.corpus, Path(args.path), None, package)
    if not is_cached(source):
        readahead.read_ahead(args.path)  # a cold load: read the source while pandas & co. are imported
    loaded = load_source(source)
    _say_cache_notes(loaded.cache_note)
    print(json.dumps(package.summarize(loaded), indent=None if args.compact else 2))
    return 0


def _run_summary(args) -> int:
    # The run is not read ahead: a JSON Lines run is read as a stream, never held whole (docs/bad-input.md).
    from . import corpora, runs

    loaded = _naming(args.path, corpora.load_path, args.corpus, args.path)
    run = _naming(args.run_path, runs.load_run, loaded, args.run_path, args.name)
    _say_cache_notes(loaded.cache_note, run.cache_note)
    print(json.dumps(_naming(args.run_path, runs.summarize, run), indent=None if args.compact else 2))
    return 0


def _cache(args) -> int:
    from .corpora import load_configured

    notes: set[Optional[str]] = set()
    for name in args.corpus or CORPUS_NAMES:
        def progress(message, fraction=None, name=name):
            _say(f"{name}: {message}")
        loaded = load_configured(name, progress=progress)
        if loaded.cache_note and not notes:  # said once, not per corpus
            _say(f"note: {loaded.cache_note}")
        notes.add(loaded.cache_note)
        state = "already cached" if loaded.from_cache else "not cached" if loaded.cache_note else "cached"
        print(f"{name}: {state} ({loaded.source}, {len(loaded.dialogs)} dialogs, {loaded.load_seconds:.1f} s)")
    return 0


def _words(args) -> int:
    from . import corpora
    from .words import frequency
    from .words.subcorpus import Filters, message_facts, subcorpus_mask
    from .words.tokens import TokenIndex

    loaded = _naming(args.path, corpora.load_path, args.corpus, args.path)
    _say_cache_notes(loaded.cache_note)

    def counts():
        utterances = loaded.utterances.reset_index(drop=True)
        index = TokenIndex.build(utterances)
        filters = Filters(roles=tuple(args.role or ()), splits=tuple(args.split or ()))
        mask = None
        if not filters.is_empty():
            mask = subcorpus_mask(message_facts(utterances, {args.corpus: loaded.dialogs}), filters)
        found = frequency.count_items(index, mask, 1)
        top = frequency.frequency_list(index, mask, 1, top=max(0, args.top))
        return {"corpus": args.corpus, "role": list(args.role or ()), "split": list(args.split or ()),
                "tokens": found.tokens, "types": int((found.counts > 0).sum()),
                "top": [{"word": w, "count": int(c), "dialogs": int(d)}
                        for w, c, d in zip(top["word"], top["count"], top["dialogs"])],
                "skipped": [s.as_dict() for s in loaded.skipped]}

    print(json.dumps(_naming(args.path, counts), ensure_ascii=False, indent=None if args.compact else 2))
    return 0


def _corpus_name(value: str) -> str:
    if value not in CORPUS_NAMES:
        raise argparse.ArgumentTypeError(f"invalid choice: {value!r} (choose from {', '.join(CORPUS_NAMES)})")
    return value


def _layer_summary(args) -> int:
    # The corpus (through the cache), then the layer: each failure names its own file, and a cache note is said once.
    from . import corpora
    from .layers import LAYER_CORPUS, load

    layer_path = Path(args.layer_path)
    if not layer_path.is_file():
        raise SourceError(layer_path, "does not exist" if not layer_path.exists() else "is not a file")
    loaded = _naming(args.corpus_path, corpora.load_path, LAYER_CORPUS[args.layer], args.corpus_path)
    figures = _naming(layer_path, lambda: load.load_layer(args.layer, loaded, layer_path).figures)
    _say_cache_notes(loaded.cache_note)
    print(json.dumps(figures, indent=None if args.compact else 2))
    return 0


def _leaderboard(args) -> int:
    from . import corpora
    from .runs.leaderboard import folder_leaderboard

    loaded = _naming(args.path, corpora.load_path, args.corpus, args.path)
    board = _naming(args.runs_dir, folder_leaderboard, loaded, args.runs_dir)
    _say_cache_notes(loaded.cache_note)
    print(json.dumps(board, indent=None if args.compact else 2))
    return 0


def _sql(args) -> int:
    from . import corpora, slices
    from .sql_console import SqlConsole, SqlRefused, console_tables

    loaded = _naming(args.path, corpora.load_path, args.corpus, args.path)
    _say_cache_notes(loaded.cache_note)
    layers = _sql_layers(loaded, args.layers) if args.layers else {}
    runs = _sql_runs(loaded, args.runs) if args.runs else {}
    codes = _sql_codes(args.codes, loaded.corpus) if args.codes else None
    data = slices.slice_data(loaded, layers=layers)
    steps = data.steps.frame if "step_features" in args.query.lower() else None  # built only for who asks
    console = SqlConsole(console_tables(loaded, layers=layers, runs=runs, codes=codes, features=data.dialogs,
                                        steps=steps))
    try:
        result = console.run(args.query, max_rows=args.max_rows, timeout_s=args.timeout)
    except SqlRefused as exc:
        _say(f"error: {exc}")
        return 2
    finally:
        console.close()
    print(_sql_json(result.as_json(), args.compact))
    return 0


def _sql_json(result: dict, compact: bool) -> str:
    """The result as one JSON object. Pretty-printed, each row stays one line of compact JSON: the text is then at
    most the result's byte budget and a few bytes a row, where indenting every value of nested lists could
    multiply it."""
    if compact:
        return json.dumps(result, ensure_ascii=False)
    rows = result.pop("rows")
    head = json.dumps(result, ensure_ascii=False, indent=2)
    lines = ",\n".join("    " + json.dumps(row, ensure_ascii=False) for row in rows)
    return head[:-2] + (',\n  "rows": [\n' + lines + "\n  ]\n}" if rows else ',\n  "rows": []\n}')


def _slice_data(args):
    """The corpus, its slice features with the layers, runs and codes the options name, and a way to open its SQL
    console for a ``sql:`` slice."""
    from . import corpora, slices
    from .runs.browse_columns import run_columns, step_run_scores

    loaded = _naming(args.path, corpora.load_path, args.corpus, args.path)
    _say_cache_notes(loaded.cache_note)
    layers = _sql_layers(loaded, args.layers) if args.layers else {}
    runs = _sql_runs(loaded, args.runs) if args.runs else {}
    codes = _sql_codes(args.codes, loaded.corpus) if args.codes else None
    data = slices.slice_data(loaded, layers=layers, annotations=codes,
                             runs={name: run_columns(loaded, run) for name, run in runs.items()},
                             step_runs={name: step_run_scores(loaded, run) for name, run in runs.items()})
    consoles: list = []

    def console():
        from .sql_console import SqlConsole, console_tables

        if not consoles:
            consoles.append(SqlConsole(console_tables(loaded, layers=layers, runs=runs, codes=codes,
                                                      features=data.dialogs)))
        return consoles[0]
    return data, console, consoles


def _kept(text: str, data, console):
    """What slice ``text`` (the grammar, or ``sql:…``) keeps on ``data``; ``SliceError`` for a bad one."""
    from . import slices
    from .slices.definitions import is_sql, run_sql_slice

    if is_sql(text):
        return run_sql_slice(console(), text, data)
    return slices.select(text, data)


def _closing(consoles: list) -> None:
    for console in consoles:
        console.close()


def _slice(args) -> int:
    from .slices import STEP, SliceError

    data, console, consoles = _slice_data(args)
    try:
        kept = _kept(args.slice, data, console)
    except SliceError as exc:
        _say(f"error: the slice {args.slice!r}: {exc}")
        return 2
    finally:
        _closing(consoles)
    if kept.level == STEP:
        keys = data.steps.keys(kept.steps)
        rounds = data.steps.has_rounds
        ids = [[d, int(r), int(t)] if rounds else [d, int(t)] for d, r, t in keys.itertuples(index=False)]
    else:
        ids = data.dialogs["dialog_id"].astype(str).to_numpy()[kept.dialogs].tolist()
    print(json.dumps({"level": kept.level, "count": len(ids), "ids": ids}, ensure_ascii=False,
                     indent=None if args.compact else 2))
    return 0


def _contrast(args) -> int:
    from .slices import SliceError
    from .slices.measures import HUMANS, REST, Groups, contrast_groups, contrast_with_humans

    data, console, consoles = _slice_data(args)
    try:
        a = _kept(args.a, data, console)
        if args.b.strip() == HUMANS:
            result = contrast_with_humans(data, args.measure, a.steps if a.steps is not None else a.dialogs, a.level,
                                          resamples=args.resamples, permutations=args.resamples)
            return _print_contrast(result, args)
        b = None if args.b.strip() == REST else _kept(args.b, data, console)
        if b is not None and b.level != a.level:
            raise SliceError(f"A is a {a.level} slice and B a {b.level} slice: a contrast compares rows of one level")
        mask_a = a.steps if a.steps is not None else a.dialogs
        mask_b = ~mask_a if b is None else (b.steps if b.steps is not None else b.dialogs)
        result = contrast_groups(data, args.measure, Groups(a.level, mask_a, mask_b), paired=args.paired,
                                 resamples=args.resamples, permutations=args.resamples)
    except SliceError as exc:
        _say(f"error: {exc}")
        return 2
    finally:
        _closing(consoles)
    return _print_contrast(result, args)


def _print_contrast(result, args) -> int:
    if result.paired:
        _say(f"note: paired by {result.paired_label or result.paired_by} ({result.n_pairs:,} in both groups)")
    elif result.note:
        _say(f"note: {result.note}")
    print(json.dumps(result.as_json(), indent=None if args.compact else 2))
    return 0


def _positive(kind, most=None):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not value > 0 or value != value:
            raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
        if most is not None and value > most:
            raise argparse.ArgumentTypeError(f"{text!r} is more than {most:,}")
        return value
    return parse


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m data_access", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    summary = sub.add_parser("summary", help="print a JSON summary of one corpus")
    summary.add_argument("corpus", choices=CORPUS_NAMES)
    summary.add_argument("path", help="the corpus file or folder")
    summary.add_argument("--compact", action="store_true", help="one line of JSON")
    summary.set_defaults(run=_summary)
    run_summary = sub.add_parser("run-summary", help="score a model run against its corpus; print one JSON object")
    run_summary.add_argument("corpus", choices=CORPUS_NAMES)
    run_summary.add_argument("path", help="the corpus file or folder")
    run_summary.add_argument("run_path", help="the run file (formats: docs/formats.md, Model runs)")
    run_summary.add_argument("--name", help="the run's name (default: the file name without its suffix)")
    run_summary.add_argument("--compact", action="store_true", help="one line of JSON")
    run_summary.set_defaults(run=_run_summary)
    cache = sub.add_parser("cache", help="build the Parquet caches of the configured sources")
    # No ``choices`` here: with nargs="*" argparse checks the empty default against them and refuses a
    # bare ``cache`` (Python < 3.12); each name is checked by _corpus_name instead.
    cache.add_argument("corpus", nargs="*", type=_corpus_name, metavar="CORPUS",
                       help=f"one or more of {', '.join(CORPUS_NAMES)} (default: all)")
    cache.set_defaults(run=_cache)
    layer = sub.add_parser("layer-summary", help="print a JSON summary of a published annotation layer")
    layer.add_argument("layer", choices=("gos-mentions", "codraw-icr"))
    layer.add_argument("corpus_path", help="the corpus file or folder the layer annotates")
    layer.add_argument("layer_path", help="the layer file (gos-mentions.jsonl or icr-codraw-data.tsv)")
    layer.add_argument("--compact", action="store_true", help="one line of JSON")
    layer.set_defaults(run=_layer_summary)
    words = sub.add_parser("words", help="print the word counts of one corpus (one JSON object)")
    words.add_argument("corpus", choices=CORPUS_NAMES)
    words.add_argument("path", help="the corpus file or folder")
    words.add_argument("--role", action="append", help="only messages of this speaker role (repeatable)")
    words.add_argument("--split", action="append", help="only dialogs of this split (repeatable)")
    words.add_argument("--top", type=int, default=20, help="how many of the most frequent words to list (default 20)")
    words.add_argument("--compact", action="store_true", help="one line of JSON")
    words.set_defaults(run=_words)
    board = sub.add_parser("leaderboard", help="rank every run of a corpus in a folder; print one JSON object")
    board.add_argument("corpus", choices=CORPUS_NAMES)
    board.add_argument("path", help="the corpus file or folder")
    board.add_argument("runs_dir", help="the folder of run files (formats: docs/formats.md, Model runs)")
    board.add_argument("--compact", action="store_true", help="one line of JSON")
    board.set_defaults(run=_leaderboard)
    sql = sub.add_parser("sql", help="run one read-only SQL query over a corpus; print one JSON object")
    sql.add_argument("corpus", choices=CORPUS_NAMES)
    sql.add_argument("path", help="the corpus file or folder")
    sql.add_argument("query", help="one SELECT over the tables of docs/slices.md (dialogs, utterances, features, …)")
    sql.add_argument("--max-rows", type=_positive(int), default=10_000, help="rows returned at most (default 10,000)")
    sql.add_argument("--timeout", type=_positive(float), default=10.0, help="seconds before the query is stopped")
    sql.add_argument("--compact", action="store_true", help="one line of JSON")
    sql.add_argument("--runs", metavar="DIR", help="a folder of run files of the corpus: the table runs")
    sql.add_argument("--layers", metavar="DIR", help="a folder with published layers under their published names "
                                                     "(as DIALOGUE_LAYERS_DIR): the tables layer_<name>, and the "
                                                     "layers' features (crs, mentions) in features")
    sql.add_argument("--codes", metavar="STORE", help="the app's store (its SQLite file, or a postgresql:// URL): the "
                                                      "table codes, the corpus's annotations by every coder and the gold")
    sql.set_defaults(run=_sql)
    one = sub.add_parser("slice", help="print the dialogs or replay steps a slice keeps (one JSON object)")
    one.add_argument("corpus", choices=CORPUS_NAMES)
    one.add_argument("path", help="the corpus file or folder")
    one.add_argument("slice", help="a slice in the grammar of docs/slices.md, or sql:SELECT … (rows naming dialog_id, "
                                   "and turn or round for steps)")
    two = sub.add_parser("contrast", help="a measure on slice A against slice B: difference, interval, p-value")
    two.add_argument("corpus", choices=CORPUS_NAMES)
    two.add_argument("path", help="the corpus file or folder")
    two.add_argument("measure", help="a column of the dialogs frame or of the step features, or score(RUN), code(L)…")
    two.add_argument("a", help="slice A (the grammar, or sql:SELECT …)")
    two.add_argument("b", help="slice B, rest (every row A does not keep), or humans (a run's score against the "
                               "humans' on the same units)")
    two.add_argument("--paired", default="auto", help="auto (by the corpus's played item: board, structure, scene), "
                                                      "none, or a column to pair by")
    two.add_argument("--resamples", type=_positive(int, CONTRAST_MAX_RESAMPLES), default=2000,
                     help=f"bootstrap resamples and permutations (at most {CONTRAST_MAX_RESAMPLES:,})")
    for command, run in ((one, _slice), (two, _contrast)):
        command.add_argument("--compact", action="store_true", help="one line of JSON")
        command.add_argument("--runs", metavar="DIR", help="a folder of run files of the corpus (score(RUN), gap(RUN))")
        command.add_argument("--layers", metavar="DIR", help="a folder with published layers under their published "
                                                             "names (crs, cr, mentions)")
        command.add_argument("--codes", metavar="STORE", help="the app's store (code(LABEL)), read only")
        command.set_defaults(run=run)
    add_live_commands(sub, _positive)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except SourceError as exc:
        _say(f"error: {exc}")
        return 2
    except Exception as exc:  # noqa: BLE001 - the contract is one line, never a traceback
        # each command names the file that failed itself (``_naming``); this is the last resort
        path = getattr(args, "path", None) or getattr(args, "corpus_path", None) or ""
        _say(f"error: {path}: {describe_unexpected(exc)}")
        return 2


if __name__ == "__main__":
    # One command, then the process ends: the cyclic collector would only walk what the loaders built
    # (after a cold CoDraw build 60-150 ms, the objects made while the build had it off), and its last
    # collections at exit every object pandas, numpy and pyarrow created (0.1 s), to free memory the exit
    # frees anyway. Loaders free their data by reference counting.
    gc.disable()
    status = main()
    # The answer is printed: end the process without the interpreter's finalization, where a background
    # thread still inside a C++ library (pyarrow's reads ahead, DuckDB's query) could abort it ("terminate
    # called without an active exception", exit -6, once in a full test run), and which would only free
    # memory the exit frees anyway. Every file the command writes is written whole before it is renamed.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
