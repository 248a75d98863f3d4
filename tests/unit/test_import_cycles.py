"""No import cycle among the project's modules. Every import counts: at module level, inside a function, and under
``if TYPE_CHECKING:`` (a type-only import still ties the two modules' design together, and a function-level one
is a cycle that only waits for the wrong call order). Import-linter's contracts only see module-level imports
of the layers they name, so this test walks the syntax tree of every module itself (docs/architecture.md)."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("data_access", "ui", "pages", "corpora", "dialogue_dashboard")
# Cycles the code still has, as the work toward none goes on: the number may only shrink.
KNOWN_CYCLES = 0


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def project_sources(root: Path = ROOT) -> dict[str, Path]:
    return {module_name(path, root): path
            for package in PACKAGES for path in sorted((root / package).rglob("*.py"))}


def import_graph(sources: dict[str, str], packages: set[str]) -> dict[str, set[str]]:
    """module -> the project modules it imports anywhere in its text. ``from pkg import name`` names the module
    ``pkg.name`` when that is a module, else ``pkg`` itself."""
    modules = set(sources)
    graph: dict[str, set[str]] = {module: set() for module in sources}
    for module, text in sources.items():
        base = module if module in packages else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(text)):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = base.split(".")
                    parts = parts[:len(parts) - (node.level - 1)]
                    origin = ".".join(parts + ([node.module] if node.module else []))
                else:
                    origin = node.module or ""
                for alias in node.names:
                    child = f"{origin}.{alias.name}"
                    targets.append(child if child in modules else origin)
            for target in targets:
                while target and target not in modules:  # ``import a.b.c`` of a name below a module
                    target = target.rpartition(".")[0]
                if target and target != module:
                    graph[module].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:
        nonlocal counter
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def project_cycles(root: Path = ROOT) -> list[list[str]]:
    paths = project_sources(root)
    packages = {name for name, path in paths.items() if path.name == "__init__.py"}
    return cycles(import_graph({name: path.read_text(encoding="utf-8") for name, path in paths.items()}, packages))


def test_the_finder_sees_a_function_level_and_a_type_only_cycle():
    sources = {
        "p": "",
        "p.a": "def f():\n    from . import b\n",
        "p.b": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import f\n",
        "p.c": "from .a import f\n",
    }
    assert cycles(import_graph(sources, {"p"})) == [["p.a", "p.b"]]


def test_no_new_import_cycle():
    found = project_cycles()
    described = "\n".join(" <-> ".join(cycle) for cycle in found)
    assert len(found) <= KNOWN_CYCLES, f"{len(found)} import cycles:\n{described}"
