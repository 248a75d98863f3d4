"""What the command line's ``sql``, ``slice`` and ``contrast`` read besides the corpus (the runs, published layers
and codes their options name), and its one-line messages: an unexpected error turned into a ``SourceError`` naming
the file, and text written on one line of stderr (``python -m data_access``, ``data_access/__main__.py``)."""
from __future__ import annotations

import sys
from pathlib import Path

from .common import SourceError, describe_unexpected


def naming(path, action, *args, **kwargs):
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


def say(text: object) -> None:
    print(one_line(text), file=sys.stderr)


def sql_layers(loaded, folder: str) -> dict:
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
            found[name] = naming(path, load.load_layer, name, loaded, path)
    return found


def sql_runs(loaded, folder: str) -> dict:
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
            say(f"note: {file.name} left out: {exc.problem}")
            continue
        runs[run.name] = run
    return runs


def sql_codes(target: str, corpus: str):
    """The annotations of ``corpus`` in the store at ``target`` (a SQLite file that exists, or a postgresql://
    URL), opened read-only as it is: a store that would need creating or migrating is refused, never changed."""
    from .store import CodingStore, StoreError, open_read_only

    if "://" not in target and not Path(target).is_file():
        raise SourceError(Path(target), "is not a store (a SQLite file of the app's notes and codes)")
    try:
        return CodingStore(open_read_only(target)).annotations(corpus=corpus)
    except StoreError as exc:
        raise SourceError("the store" if "://" in target else Path(target), str(exc)) from None


__all__ = ["naming", "one_line", "say", "sql_codes", "sql_layers", "sql_runs"]
