"""The app's corpus is resolved once, at its edge (issue 36): ``ui/shell/corpus_edge.py`` makes the ``Corpus`` value and
the pages hand it down. Below the edge no ui module turns a name into a corpus again (``resolve`` of the edge or of
the registry, ``Corpus.resolve``, ``registry.corpus_module``) but where a name comes in from outside, each such
place named here with the reason; and each page gets its corpus from the edge once per run: at the page's top
level (never in a function, a loop or a comprehension's body), each edge call once, and never by resolving a name.

``tests/unit/test_corpus_resolution.py`` checks the registry's resolver across the whole project; this test checks
the app's own edge. Both walk the syntax tree of each module."""
from __future__ import annotations

import ast
from pathlib import Path

from tests.unit.test_corpus_resolution import ScopedFinds

ROOT = Path(__file__).resolve().parents[2]
EDGE = "ui/shell/corpus_edge.py"
RESOLVERS = {"resolve", "corpus_module", "package_named"}  # the edge's and the registry's; ``Corpus.resolve`` as an attribute
RESOLVING_OWNERS = {"corpus_edge", "registry", "Corpus"}  # ``corpus_edge.resolve(…)``, ``registry.corpus_module``…
# (file, function) -> why a name is resolved there, below the edge
ALLOWED = {
    ("ui/cache_keys.py", "key_source"): "a cache key holds its corpus's name, not its package (Streamlit hashes a "
                                        "key as plain values): the cached loader, given the key alone, looks it up",
    ("ui/coding/model_labels.py", "_loaded"): "a name from outside: the corpus an uploaded file of a model's labels names",
    ("ui/server/live_identity.py", "app_routes"): "the live routes' edge: an HTTP request carries no Corpus, the stored "
                                                  "game names its corpus",
}
IMPORT = "<import>"  # a module-level import of a resolver: allowed where one of the module's functions is
# What a page may ask the edge for: the picker's corpus, the corpus its charts draw, every corpus.
PAGE_EDGE_CALLS = {"corpus_selector", "page_corpus", "every_corpus"}


class _Resolutions(ScopedFinds):
    """Where a module resolves a corpus name: (enclosing function's qualified name, IMPORT or None, line)."""

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        resolving = (node.module or "").endswith(("corpus_edge", "registry", "corpus"))
        if resolving and any(alias.name in RESOLVERS for alias in node.names):
            self.found.append((self._here() or IMPORT, node.lineno))

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id in RESOLVERS:
            self.found.append((self._here(), node.lineno))
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if (node.attr in RESOLVERS and isinstance(node.value, ast.Name) and node.value.id in RESOLVING_OWNERS) \
                or node.attr == "corpus_module":
            self.found.append((self._here(), node.lineno))
        self.generic_visit(node)


def resolutions(text: str) -> list[tuple[str | None, int]]:
    visitor = _Resolutions()
    visitor.visit(ast.parse(text))
    return visitor.found


def _allowed(file: str, function: str | None) -> bool:
    if function == IMPORT:
        return any(allowed_file == file for allowed_file, _function in ALLOWED)
    return function is not None and (file, function.split(".")[0]) in ALLOWED


def _ui_modules() -> list[tuple[str, str]]:
    return [(path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8"))
            for path in sorted((ROOT / "ui").rglob("*.py")) if path.relative_to(ROOT).as_posix() != EDGE]


def test_the_scan_sees_an_import_a_call_and_an_attribute():
    text = ("from ui.shell.corpus_edge import resolve\nfrom data_access.corpus import Corpus\nfrom pathlib import Path\n"
            "def f(name):\n    return resolve(name).package\n"
            "def g(name):\n    return Corpus.resolve(name), corpus_edge.resolve(name), registry.corpus_module(name)\n"
            "def h(name):\n    return Path(name).resolve()\n")
    assert resolutions(text) == [(IMPORT, 1), ("f", 5), ("g", 7), ("g", 7), ("g", 7)]


def test_no_ui_module_below_the_edge_resolves_a_corpus_name():
    wrong = [f"{file}:{line} ({function or 'module level'})"
             for file, text in _ui_modules() for function, line in resolutions(text) if not _allowed(file, function)]
    assert not wrong, ("a ui module resolves a corpus name below the edge; take the Corpus the page hands down "
                       "(corpus.name, corpus.package), or say in ALLOWED why a name comes in from outside there: "
                       + ", ".join(wrong))


def test_every_allowed_place_still_resolves():
    texts = dict(_ui_modules())
    used = {(file, function) for file, function in ALLOWED
            if any(found == function for found, _line in resolutions(texts[file]))}
    assert used == set(ALLOWED), f"no longer resolving a name, drop from ALLOWED: {sorted(set(ALLOWED) - used)}"


class _PageEdge(ast.NodeVisitor):
    """A page's calls of the edge (PAGE_EDGE_CALLS), each with whether it runs once per run of the page: at its top
    level, not in a function, a loop's body or a comprehension's body (its first iterable runs once)."""

    def __init__(self) -> None:
        self.depth = 0  # how many functions, loops and comprehension bodies enclose the node
        self.calls: list[tuple[str, bool, int]] = []  # (the call's text, once per run, line)

    def _repeated(self, node) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = _repeated

    visit_While = _repeated

    def _for(self, node) -> None:
        self.visit(node.iter)  # evaluated once, before the loop
        self.depth += 1
        for child in (node.target, *node.body, *node.orelse):
            self.visit(child)
        self.depth -= 1

    visit_For = visit_AsyncFor = _for

    def _comprehension(self, node) -> None:
        first, *others = node.generators
        self.visit(first.iter)
        self.depth += 1
        for generator in (first, *others):
            if generator is not first:
                self.visit(generator.iter)
            for condition in generator.ifs:
                self.visit(condition)
        for part in ("elt", "key", "value"):
            if hasattr(node, part):
                self.visit(getattr(node, part))
        self.depth -= 1

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension

    def visit_Call(self, node: ast.Call) -> None:
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
        if name in PAGE_EDGE_CALLS:
            self.calls.append((ast.unparse(node), self.depth == 0, node.lineno))
        self.generic_visit(node)


def _pages() -> list[tuple[str, str]]:
    return [(path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8"))
            for path in sorted((ROOT / "pages").glob("*.py"))]


def test_the_page_scan_tells_a_call_once_per_run_from_a_repeated_one():
    text = ("corpus = corpus_selector('k')\ncorpora = {c.name: c for c in every_corpus()}\n"
            "for figures in (a, b):\n    page_corpus(figures)\n"
            "def view():\n    return page_corpus(a)\n"
            "names = [every_corpus() for _ in range(2)]\n")
    edge = _PageEdge()
    edge.visit(ast.parse(text))
    assert [(call, once) for call, once, _line in edge.calls] == [
        ("corpus_selector('k')", True), ("every_corpus()", True), ("page_corpus(figures)", False),
        ("page_corpus(a)", False), ("every_corpus()", False)]


def test_each_page_gets_its_corpus_from_the_edge_once_and_never_resolves_a_name():
    wrong = []
    for file, text in _pages():
        tree = ast.parse(text)
        wrong += [f"{file}:{line} resolves a name" for _function, line in resolutions(text)]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "ui.shell.corpus_edge":
                wrong += [f"{file}:{node.lineno} imports {alias.name} from the edge" for alias in node.names
                          if alias.name not in PAGE_EDGE_CALLS]
        edge = _PageEdge()
        edge.visit(tree)
        wrong += [f"{file}:{line} calls {call} where it may run more than once" for call, once, line in edge.calls
                  if not once]
        texts = [call for call, _once, _line in edge.calls]
        wrong += [f"{file} calls {call} {texts.count(call)} times" for call in sorted(set(texts)) if texts.count(call) > 1]
    assert not wrong, "a page gets its corpus from the edge once per run, at its top level: " + "; ".join(wrong)
