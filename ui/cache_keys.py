"""What the app's caches (``ui.cached``) key their entries on: a resolved corpus's source, a model run's file and
version, a published layer's file, and a function passed to a derived cache by its module and name; and a load that
failed, which the caches return instead of raising. Plain values, no Streamlit of their own."""
from __future__ import annotations

import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, cast

from data_access.corpus import Corpus
from data_access.sources import Source, split_source_name
from ui.shell.corpus_edge import package_named


@dataclass(frozen=True)
class CorpusKey:
    """Which source a corpus is read from: the cache key of everything computed from it. Paths as strings, so
    the key is cheap to hash; pointing an environment variable elsewhere makes a new key."""
    corpus: str
    data: Optional[str]  # the data path, None for the demo corpus
    assets: Optional[str]  # the assets path, None when there is none

    @property
    def is_demo(self) -> bool:
        return self.data is None


@dataclass(frozen=True)
class RunKey:
    """A model run of a corpus: its file and version (modification time), so an edited run is scored again."""
    corpus: str
    run: str  # the run's name, as the picker and the ``run`` URL parameter show it
    file: str
    is_demo: bool
    stamp: int  # the file's st_mtime_ns, 0 when it could not be read


@dataclass(frozen=True)
class LayerKey:
    """A published annotation layer linked to its corpus source, read again when its file changes."""
    layer: str
    corpus: CorpusKey
    file: str
    is_demo: bool
    stamp: Optional[tuple[int, int]]  # the file's (size, st_mtime_ns), None when it could not be read


@dataclass(frozen=True, eq=False)
class DialogSelection:
    """A slice's dialogs as an argument of a derived cache (a figure on the slice): keyed by the digest of its ids,
    never by hashing the ids themselves on every rerun."""
    text: str  # the slice's canonical text
    ids: tuple[str, ...]
    digest: str
    steps: Optional[Any] = None  # a step slice's moments (a frame of dialog_id, round, turn), in the digest too

    @classmethod
    def of(cls, text: str, ids, steps=None) -> "DialogSelection":
        import hashlib

        import pandas as pd

        kept = tuple(str(d) for d in ids)
        digest = hashlib.sha1("\n".join(kept).encode("utf-8", "surrogatepass"))
        if steps is not None:
            digest.update(b"\nsteps\n")
            digest.update(pd.util.hash_pandas_object(steps, index=False).to_numpy().tobytes())
        return cls(text, kept, digest.hexdigest(), steps)


@dataclass(frozen=True)
class LoadFailure:
    corpus: str
    message: str  # names the file and the problem


def corpus_key(corpus: Corpus) -> CorpusKey:
    """The key the caches file a resolved corpus under (its source, as plain strings)."""
    source = corpus.source
    return CorpusKey(corpus.name, str(source.path) if source.path else None, str(source.assets) if source.assets else None)


def key_source(key: CorpusKey) -> Source:
    """The source a key names, with its corpus's package, for the loader behind the caches."""
    # A key holds its corpus's name, not its package (Streamlit hashes a key as plain values; a module is none),
    # so the cached loader, given only the key, asks the edge for the package once more.
    # A collection's key is named <corpus>@<collection>: its source is the corpus's, read by the corpus's reader.
    corpus_name, collection = split_source_name(key.corpus)
    return Source(corpus_name, Path(key.data) if key.data else None, Path(key.assets) if key.assets else None,
                  package_named(key.corpus), collection)


def _function_identity(function: types.FunctionType) -> str:
    """What a cached function argument is hashed by (Streamlit cannot hash a function): its module and
    qualified name, which ``_derivable`` makes sure name one function."""
    return f"{function.__module__}.{function.__qualname__}"


# Lets the derived caches take the function itself as an argument, and a corpus (hashed by its source: Streamlit
# would hash a dataclass field by field, its package module too).
_HASH_FUNCTIONS: dict[Any, Callable[[Any], Any]] = {types.FunctionType: _function_identity,
                                                    DialogSelection: lambda selection: selection.digest,
                                                    Corpus: corpus_key}


_PLAIN_TYPES = (str, int, float, bool, type(None), CorpusKey)


def _plain(value: Any) -> bool:
    return type(value) in _PLAIN_TYPES or (type(value) is tuple and all(_plain(v) for v in value))


def plain_key(function: Callable, key: CorpusKey, args: tuple) -> Optional[str]:
    """The whole key of a derived cache entry as one string, when its arguments are plain values (strings,
    numbers, None, a corpus key, tuples of them: a step's view is asked for by dialog and step); else None.

    Streamlit hashes each argument of a cached function value by value through its generic hasher: a function,
    a corpus key and a tuple of three plain values took about 0.6 ms on a loaded machine, and a Replay page's run
    asks its derived cache 7 to 19 times (a step the browser has then cost the server more in keys than in
    anything it drew). One string is hashed at once. The ``repr`` of these types tells apart what must differ
    (1, 1.0, True and "1"; None and "None"); the exact type is checked, so a subclass (an enum, numpy's int)
    takes the generic path."""
    if not all(_plain(a) for a in args):
        return None
    return repr((_function_identity(cast(types.FunctionType, function)), key, args))  # _derivable checked it


def _derivable(function: Callable) -> Callable:
    """``function`` when it can key a cache entry by its module and name; otherwise a clear error, at the call
    rather than as an unpicklable or colliding cache entry later. A lambda or a function defined inside another
    has no name of its own (two of them would share one entry), a method or a partial no stable name at all."""
    if not isinstance(function, types.FunctionType):
        raise TypeError(f"ui.cached needs a plain function defined with def at module level, got {function!r}")
    if "<lambda>" in function.__qualname__ or "<locals>" in function.__qualname__:
        raise TypeError(f"ui.cached needs a function defined with def at module level (its module and name key the "
                        f"cache), not {function.__qualname__} from {function.__module__}")
    return function
