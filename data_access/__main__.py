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

``python -m data_access live-export <corpus> STORE OUT [--game ID ...] [--split S]`` writes the finished live
games of the corpus (default: all of them, a study) from the store (read as it is) into the folder OUT in the
corpus's own files and prints one JSON object (``corpus``, ``games``, ``path``: what the corpus's reader opens; see
docs/live-games.md).

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
from .common import CORPUS_NAMES, SourceError, describe_unexpected


def _naming(path, action, *args, **kwargs):
    """``action(*args, **kwargs)``, with an unexpected error turned into a SourceError naming ``path``: the
    one line on stderr names the file that failed (the corpus or the run or layer file), whichever it is."""
    try:
        return action(*args, **kwargs)
    except SourceError:
        raise
    except Exception as exc:  # noqa: BLE001 - the contract is one line naming the file, never a traceback
        raise SourceError(path, describe_unexpected(exc)) from exc


def one_line(text: object) -> str:
    """``text`` with every control character written as its escape (a newline as ``\\n``): a path or message
    that holds one stays one line on stderr, and shows where the odd character is."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in str(text))


def _say(text: object) -> None:
    print(one_line(text), file=sys.stderr)


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
    console = SqlConsole(console_tables(loaded, layers=layers, runs=runs, codes=codes,
                                        features=slices.slice_data(loaded, layers=layers).dialogs))
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


def _sql_layers(loaded, folder: str) -> dict:
    """The published layers of ``loaded``'s corpus in ``folder``, under their published names (as
    ``DIALOGUE_LAYERS_DIR``); SourceError naming the folder or the layer file that fails."""
    from .contract import layers_of, package_of
    from .layers import LAYER_FILES, load

    root = Path(folder)
    if not root.is_dir():
        raise SourceError(root, "is not a folder of published layers" if root.exists() else "does not exist")
    found = {}
    for name in layers_of(package_of(loaded)):
        path = root / LAYER_FILES[name]
        if path.is_file():
            found[name] = _naming(path, load.load_layer, name, loaded, path)
    return found


def _sql_runs(loaded, folder: str) -> dict:
    """Every run of ``loaded``'s corpus in ``folder`` (as the leaderboard command reads them), by name; a file that
    is not a run of the corpus is said on stderr and left out."""
    from .runs import load_run
    from .runs.leaderboard import META_SUFFIX
    from .scoring.lines import RUN_SUFFIXES

    root = Path(folder)
    if not root.is_dir():
        raise SourceError(root, "is not a folder of runs" if root.exists() else "does not exist")
    runs = {}
    for file in sorted(root.iterdir()):
        name = file.name.lower()
        if file.name.startswith(".") or name.endswith(META_SUFFIX) or not file.is_file() \
                or not any(name.endswith(s) for s in RUN_SUFFIXES):
            continue
        try:
            run = load_run(loaded, file)
        except SourceError as exc:
            _say(f"note: {file.name} left out: {exc.problem}")
            continue
        runs[run.name] = run
    return runs


def _sql_codes(target: str, corpus: str):
    """The annotations of ``corpus`` in the store at ``target`` (a SQLite file that exists, or a postgresql://
    URL), opened read-only as it is: a store that would need creating or migrating is refused, never changed."""
    from .store import CodingStore, StoreError, open_read_only

    if "://" not in target and not Path(target).is_file():
        raise SourceError(Path(target), "is not a store (a SQLite file of the app's notes and codes)")
    try:
        return CodingStore(open_read_only(target)).annotations(corpus=corpus)
    except StoreError as exc:
        raise SourceError("the store" if "://" in target else Path(target), str(exc)) from None


def _live_export(args) -> int:
    """Write a collection's games in the corpus's files, reading the store as it is (never created or migrated)."""
    from . import live
    from .registry import corpus_module
    from .store import Store, StoreError, open_read_only

    target = args.store
    if "://" not in target and not Path(target).is_file():
        raise SourceError(Path(target), "is not a store (a SQLite file of the app's notes and games)")
    try:
        store = Store(open_read_only(target))
    except StoreError as exc:
        raise SourceError("the store" if "://" in target else Path(target), str(exc)) from None
    try:
        games = args.game or store.live_games.finished_ids(args.corpus)
        path = live.export(store, corpus_module(args.corpus), games, Path(args.out), split=args.split)
    except (ValueError, StoreError) as exc:
        raise SourceError(Path(args.out), str(exc)) from None
    finally:
        store.close()
    print(json.dumps({"corpus": args.corpus, "games": len(set(games)), "path": str(path)}))
    return 0


def _positive(kind):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not value > 0 or value != value:
            raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
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
    export = sub.add_parser("live-export", help="write finished live games in the corpus's own files; print one JSON "
                                                "object")
    export.add_argument("corpus", choices=CORPUS_NAMES)
    export.add_argument("store", help="the app's store (its SQLite file, or a postgresql:// URL)")
    export.add_argument("out", help="the folder to write (absent or empty)")
    export.add_argument("--game", type=_positive(int), action="append", help="one game's id (repeatable; default: "
                                                                             "every finished game of the corpus)")
    export.add_argument("--split", default="test", help="the split the games load under (default: test)")
    export.set_defaults(run=_live_export)
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
