"""The app's edge for corpora: the one ui module that resolves a corpus name (the URL's ``corpus=``, a picker's
choice, the name a cache key holds) into its resolved value, a ``data_access.corpus.Corpus`` (package, title,
source, scoring), as ``ui.url_state`` is the one module that reads the URL. Below it a corpus travels as that
value, or as the loaded corpus and runs, which carry their package: nothing else in the app asks the registry
for a package by name (``tests/unit/test_corpus_resolution.py``). The cache key of a resolved corpus is
``ui.cache_keys.corpus_key``, its per-corpus UI ``ui.corpus_views.views_of``. The pages still hand the ui
modules a corpus's name; those that need its package resolve it here."""
from __future__ import annotations

from data_access.corpus import Corpus
from data_access.registry import corpus_module
from data_access.sources import configured_source


def resolve(name: str) -> Corpus:
    """Corpus ``name`` where the environment points (``CODRAW_DATA``...; unset: its demo corpus). Raises
    ValueError for a name that is not a registered corpus. Cheap: a lookup and two environment variables."""
    package = corpus_module(name)
    return Corpus(name, configured_source(package), package)
