"""The corpus registry: the one module that maps a corpus name to its package, and the one that imports a corpus
package by its name (``importlib``). Elsewhere ``importlib`` imports known modules of the app itself when a page
first needs them, never a package a name asks for: ``ui/shell/corpus_views.py`` a corpus's replay section and run
panels, ``ui/analysis/charts.py`` a corpus's chart builders (``ui/server/warm_imports.py`` imports third-party libraries ahead of
the first page). The corpora that come with the dashboard are registered exactly
as third-party ones are: each is an entry point of the group ``dialogue_dashboard.corpora`` (pyproject.toml),
found with ``importlib.metadata``; a package installed by someone else adds its own entry point to the same group
and is offered by every page, the command line and the Python API with no change to this repository
(docs/architecture.md, "Writing a corpus plugin"). ``register`` adds a package at run time (a test's corpus).

It sits just above the value types and the corpus contract and imports nothing else of the project. It is the
only module that resolves a name (``corpus_module``): below the app's edge (``ui/shell/corpus_edge.py``, the command
line, the Python API) a corpus travels as a value that carries its package (``LoadedCorpus.package``,
``Source.package``, ``LoadedRun.package``), and data whose rows name their corpus (notes, codes, the overview of
every corpus) read a member of each package through the tables of ``CorpusAttribute``
(``tests/unit/test_corpus_resolution.py``)."""
from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
from collections.abc import Mapping
from types import ModuleType
from typing import Any, Callable, Iterable, Iterator, NoReturn, Optional, cast

from .contract import CorpusPackage, missing_members
from .types import SOURCE_MARK, PluginError

ENTRY_POINT_GROUP = "dialogue_dashboard.corpora"
# The corpus packages that come with the dashboard, in the order pages list them (first, before any plugin). They
# are named here too so that a checkout run without installing it (its entry points unknown) still has them; each
# is the data part of its unit ``corpora.<name>``.
BUILT_IN_PACKAGES = ("corpora.codraw.data", "corpora.gos.data", "corpora.minecraft.data")
# The names of every registered corpus: one list, extended in place, so that every module that imported it sees
# a corpus registered later.
CORPUS_NAMES: list[str] = [package.split(".")[1] for package in BUILT_IN_PACKAGES]
# name -> the module path of its package (built-in and plugins), or the package itself (``register``)
_packages: dict[str, str | ModuleType] = dict(zip(CORPUS_NAMES, BUILT_IN_PACKAGES))
# plugins whose package failed to import or to meet the contract: name -> why. Such a plugin is taken out of
# ``CORPUS_NAMES`` (no page, picker or table lists it); the Data page, ``dialogue_dashboard.corpora()`` and a
# command naming it say why.
PLUGIN_PROBLEMS: dict[str, str] = {}


def _discover_plugins() -> None:
    """Add every installed corpus plugin (entry point ``<name> = <package>``) after the built-in corpora, sorted by
    name. A plugin is only imported when it is first used (or by ``check_plugins``)."""
    try:
        found = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    except Exception as exc:  # noqa: BLE001 - broken metadata of some other distribution must not stop the app
        PLUGIN_PROBLEMS["*"] = f"the installed entry points cannot be read ({exc})"
        return
    _add_plugins(found)


def _add_plugins(entries: Iterable[importlib.metadata.EntryPoint]) -> None:
    """Add the plugins ``entries`` name (``<name> = <package>``), sorted by name; one that names a corpus already
    registered (a built-in one) is ignored."""
    for entry in sorted(entries, key=lambda e: e.name):
        if entry.name in _packages:
            continue
        _packages[entry.name] = entry.value
        CORPUS_NAMES.append(entry.name)


_discover_plugins()


def register(package: ModuleType) -> CorpusPackage:
    """Add a corpus package that implements ``contract.CorpusPackage``: every page, the CLI, the runs and the
    exports offer it from then on, after the others. Raises ValueError for a package that misses a member of the
    contract or whose ``NAME`` is taken."""
    missing = missing_members(package)
    if missing:
        raise ValueError(f"{package.__name__} is not a corpus package: it lacks {', '.join(missing)}")
    name = package.NAME
    if name in CORPUS_NAMES:
        raise ValueError(f"a corpus named {name!r} is already registered")
    _packages[name] = package
    CORPUS_NAMES.append(name)
    return cast(CorpusPackage, package)


def unregister(name: str) -> None:
    """Remove a corpus added with ``register`` (the built-in corpora and the installed plugins stay)."""
    if isinstance(_packages.get(name), ModuleType):
        del _packages[name]
        CORPUS_NAMES.remove(name)


@contextlib.contextmanager
def registered(package: ModuleType) -> Iterator[CorpusPackage]:
    """``register(package)`` for the duration of a ``with`` block (tests)."""
    corpus = register(package)
    try:
        yield corpus
    finally:
        unregister(package.NAME)


def corpus_module(name: str) -> CorpusPackage:
    """The package of corpus ``name`` (one of ``CORPUS_NAMES``), typed by the corpus contract. Raises ValueError
    for an unknown name, and ``PluginError`` (a ValueError) for a plugin whose package cannot be imported or lacks
    a member of the contract: that plugin is taken out of ``CORPUS_NAMES`` and its problem kept in
    ``PLUGIN_PROBLEMS``."""
    if name not in CORPUS_NAMES:
        if name in PLUGIN_PROBLEMS:
            raise PluginError(name, PLUGIN_PROBLEMS[name])
        raise ValueError(f"unknown corpus {name!r}; expected one of {', '.join(CORPUS_NAMES)}")
    found = _packages[name]
    if isinstance(found, ModuleType):
        return cast(CorpusPackage, found)
    try:
        package = importlib.import_module(found)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - a plugin's own failure (SystemExit too) is the plugin's, by its name
        _refuse(name, f"{found} cannot be imported ({type(exc).__name__}: {exc})", exc)
    missing = missing_members(package)
    if missing:
        _refuse(name, f"{found} lacks {', '.join(missing)}")
    _packages[name] = package
    return cast(CorpusPackage, package)


def _refuse(name: str, problem: str, cause: Optional[BaseException] = None) -> NoReturn:
    """Take the plugin ``name`` out of the registered corpora, keep why, and raise it as a ``PluginError``."""
    PLUGIN_PROBLEMS[name] = problem
    _packages.pop(name, None)
    if name in CORPUS_NAMES:
        CORPUS_NAMES.remove(name)
    raise PluginError(name, problem) from cause


def check_plugins() -> dict[str, str]:
    """Import every installed plugin not imported yet, so that ``CORPUS_NAMES`` holds only corpora that can be
    used: the app's router does it before a page lists the corpora, the Python API before ``corpora()``. Returns
    the plugins refused, name -> why (``PLUGIN_PROBLEMS``). Cheap once every plugin was imported."""
    for name in list(CORPUS_NAMES):
        found = _packages.get(name)
        if isinstance(found, str) and found not in BUILT_IN_PACKAGES:
            with contextlib.suppress(PluginError):
                corpus_module(name)
    return dict(PLUGIN_PROBLEMS)


def resolve(text: str) -> str | None:
    """The registered corpus that ``text`` names: its name, or its name or title however cased and spaced (a link
    written by hand: "CoDraw", "a game of sorts"); None when it names none."""
    if text in CORPUS_NAMES:
        return text
    wanted = text.strip().casefold()
    for name in list(CORPUS_NAMES):  # a copy: a broken plugin met here leaves the list
        if wanted == name.casefold():
            return name
        try:
            if wanted == corpus_module(name).TITLE.casefold():
                return name
        except PluginError:
            continue
    return None


def layer_corpus(layer: str) -> CorpusPackage:
    """The registered corpus package whose ``LAYERS`` names ``layer`` (a layer's name is unique across corpora);
    ValueError when none does."""
    for name in list(CORPUS_NAMES):  # a copy: a broken plugin met here leaves the list
        try:
            package = corpus_module(name)
        except PluginError:
            continue
        if layer in getattr(package, "LAYERS", ()):
            return package
    raise ValueError(f"no registered corpus has the layer {layer!r}")


REQUIRED = object()  # ``CorpusAttribute(missing=...)`` unset: every package has the member


class CorpusAttribute(Mapping):
    """corpus name -> one member of its package (``TITLE``, ``DATA_VARIABLE``...), for every registered corpus:
    for data whose rows name their corpus and for lists of every corpus (a value at hand carries its package).

    The member is read from the package when asked for (the package is imported then, not when this module
    is), so a table such as ``CORPUS_TITLES`` needs no list of corpora of its own."""

    def __init__(self, member: str, convert: Callable[[Any], Any] = lambda value: value, missing: Any = REQUIRED):
        # ``missing``: the value for a package without the member (an optional one of the contract)
        self._member, self._convert, self._missing = member, convert, missing

    def __getitem__(self, name: str) -> Any:
        name = name.partition(SOURCE_MARK)[0]  # a collection beside a corpus (``codraw@collected``) is the corpus's
        if name not in CORPUS_NAMES:
            raise KeyError(name)
        package = corpus_module(name)
        if self._missing is not REQUIRED and not hasattr(package, self._member):
            return self._missing
        return self._convert(getattr(package, self._member))

    def __iter__(self) -> Iterator[str]:
        return iter(list(CORPUS_NAMES))

    def __len__(self) -> int:
        return len(CORPUS_NAMES)

    def __repr__(self) -> str:
        return f"CorpusAttribute({self._member!r})"


CORPUS_TITLES: Mapping[str, str] = CorpusAttribute("TITLE")
