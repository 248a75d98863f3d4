"""The registry is the only place that resolves a corpus name (issue 36). ``registry.corpus_module(name)`` turns a
name into its package; it is called by the registry itself and at the edges where a name comes in from outside:
the app's (``ui/shell/corpus_edge.py``, which resolves the URL's corpus into a ``Corpus`` value), the command line's, the
Python API's, and the few functions that take a name for the command line, the tests and a notebook. Everything
below them gets the package from a value that carries it (``contract.package_of``: a loaded corpus, a run, a
source) or, for data whose rows name their corpus, from the registry's tables (``registry.CorpusAttribute``).

The test walks the syntax tree of every application module and names each use of the resolver outside those
places, with the function it is in."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("data_access", "ui", "pages", "corpora", "dialogue_dashboard")
RESOLVER = "corpus_module"
IMPORT = "<import>"  # a module-level import of the resolver: allowed where one of the module's functions is
# (file, function or None for the whole module) -> why a name is resolved there
ALLOWED = {
    ("data_access/registry.py", None): "the registry: the resolver and its tables",
    ("ui/shell/corpus_edge.py", None): "the app's edge: the URL's corpus name becomes a Corpus value",
    ("data_access/corpus.py", "Corpus.resolve"): "the Python API's edge (dialogue_dashboard.open_corpus)",
    ("ui/server/live_identity.py", "app_routes"): "the live routes' edge: an HTTP request carries no Corpus, the stored "
                                                  "game names its corpus",
    ("data_access/__main__.py", "_summary"): "the command line's edge",
    ("data_access/live_commands.py", "live_export"): "the command line's edge",
    ("data_access/corpora.py", "demo_path"): "a name's entry for the command line and the tests",
    ("data_access/corpora.py", "load_configured"): "a name's entry for the command line and the tests",
    ("data_access/corpora.py", "load_path"): "a name's entry for the command line and the tests",
    ("data_access/runs/demo.py", "demo_runs"): "a name's entry for the run listing and the tests",
}


class ScopedFinds(ast.NodeVisitor):
    """A syntax-tree walk that knows the function (or class) it is in and collects (that scope or None, line)."""

    def __init__(self) -> None:
        self.scope: list[str] = []
        self.found: list[tuple[str | None, int]] = []

    def _enter(self, node) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _enter

    def _here(self) -> str | None:
        return ".".join(self.scope) or None


class _Uses(ScopedFinds):
    """Where a module names the resolver: (enclosing function's qualified name or None, line)."""

    def visit_Name(self, node: ast.Name) -> None:
        if node.id == RESOLVER:
            self.found.append((self._here(), node.lineno))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr == RESOLVER:
            self.found.append((self._here(), node.lineno))
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if any(alias.name == RESOLVER for alias in node.names):
            self.found.append((self._here() or IMPORT, node.lineno))


def resolver_uses(text: str) -> list[tuple[str | None, int]]:
    uses = _Uses()
    uses.visit(ast.parse(text))
    return uses.found


def _allowed(file: str, function: str | None) -> bool:
    if (file, None) in ALLOWED:
        return True
    if function == IMPORT:
        return any(allowed_file == file for allowed_file, _function in ALLOWED)
    # a use inside a function nested in an allowed one counts as the allowed function's
    return function is not None and any((file, ".".join(function.split(".")[:depth])) in ALLOWED
                                        for depth in range(1, function.count(".") + 2))


def test_the_scan_sees_a_call_an_import_and_an_attribute():
    text = ("from data_access.registry import corpus_module\nfrom data_access import registry\n"
            "def f(name):\n    return corpus_module(name)\n"
            "class C:\n    def g(self, name):\n        return registry.corpus_module(name).TITLE\n")
    assert resolver_uses(text) == [(IMPORT, 1), ("f", 4), ("C.g", 7)]


def test_only_the_registry_and_the_edges_resolve_a_corpus_name():
    wrong = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            file = path.relative_to(ROOT).as_posix()
            for function, line in resolver_uses(path.read_text(encoding="utf-8")):
                if not _allowed(file, function):
                    wrong.append(f"{file}:{line} ({function or 'module level'})")
    assert not wrong, ("a corpus name is resolved below the edge; take the package from the value at hand "
                       "(contract.package_of) or a registry table (registry.CorpusAttribute): " + ", ".join(wrong))


def test_every_allowed_place_still_resolves():
    used = set()
    for file, function in ALLOWED:
        uses = resolver_uses((ROOT / file).read_text(encoding="utf-8"))
        if any(function is None or found == function for found, _line in uses):
            used.add((file, function))
    assert used == set(ALLOWED), f"no longer resolving a name, drop from ALLOWED: {sorted(set(ALLOWED) - used)}"
