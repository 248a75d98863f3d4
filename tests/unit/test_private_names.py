"""A module's ``_names`` are its own: no application module imports or uses a ``_private`` name of a module in
another package (``from ..store.notes import _x``, ``cached._key(...)`` from pages). Within one package (the
modules of one directory) it is allowed; tests may reach into what they test. See docs/architecture.md."""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[2]
APPLICATION = ("data_access", "ui", "pages", "corpora", "dialogue_dashboard", "benchmarks")
SCRIPTS = ("app.py", "server.py")


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _package(module: str, packages: set[str]) -> str:
    return module if module in packages else module.rpartition(".")[0]


def _imported_from(module: str, node: ast.ImportFrom, packages: set[str]) -> str:
    """The absolute name of the module ``node`` imports from (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    base = _package(module, packages).split(".")
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def dotted_name(node: ast.expr) -> Optional[str]:
    """``os.environ.get`` for that attribute chain of names, None for anything else (also tests/app/test_readme.py)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = dotted_name(node.value)
        return f"{head}.{node.attr}" if head else None
    return None


def private_uses(sources: dict[str, str], packages: set[str]) -> list[str]:
    """Every use in ``sources`` (module name → source text) of another package's module's ``_name``, as
    ``module:line uses owner._name``. ``packages`` are the module names that are packages (``__init__``)."""
    modules = set(sources)
    found = []
    for module, text in sources.items():
        tree = ast.parse(text)
        aliases: dict[str, str] = {}  # a local name bound to one of the application's modules → that module
        uses: list[tuple[int, str, str]] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = _imported_from(module, node, packages)
                for alias in node.names:
                    if f"{source}.{alias.name}" in modules:
                        aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
                    elif _is_private(alias.name) and source in modules:
                        uses.append((node.lineno, source, alias.name))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in modules:
                        aliases[alias.asname or alias.name] = alias.name
                        if not alias.asname:  # ``import a.b`` binds ``a``; ``a.b._x`` is found by its dotted name
                            aliases.setdefault(alias.name.split(".")[0], alias.name.split(".")[0])
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _is_private(node.attr):
                dotted = dotted_name(node.value)
                if dotted is None:
                    continue
                head, _, rest = dotted.partition(".")
                owner = aliases[head] + (f".{rest}" if rest else "") if head in aliases else None
                if owner in modules:
                    uses.append((node.lineno, owner, node.attr))
        found += [f"{module}:{line} uses {owner}.{name}" for line, owner, name in sorted(set(uses))
                  if _package(owner, packages) != _package(module, packages)]
    return found


def _application_sources(root: Path) -> tuple[dict[str, str], set[str]]:
    paths = [path for top in APPLICATION for path in (root / top).rglob("*.py")]
    paths += [root / script for script in SCRIPTS if (root / script).exists()]
    sources = {_module_name(path, root): path.read_text(encoding="utf-8") for path in paths}
    packages = {_module_name(path, root) for path in paths if path.name == "__init__.py"}
    # Directories without __init__ (pages/) are packages of their modules all the same.
    packages |= {module.rpartition(".")[0] for module in sources if "." in module} - set(sources)
    return sources, packages


def test_no_module_uses_another_packages_private_names():
    sources, packages = _application_sources(ROOT)
    assert len(sources) > 100  # the scan found the application
    assert private_uses(sources, packages) == []


def test_the_check_finds_imports_and_attribute_uses_across_packages():
    sources = {
        "app.store": "", "app.store.notes": "_secret = 1\n", "app.ui": "", "app.ui.cached": "def _key(): ...\n",
        "app.ui.words": "from . import cached\nfrom ..store.notes import _secret\nx = cached._key()\n",
        "app.pages.one": ("from app.ui import cached\nimport app.store.notes\nfrom app.store.notes import _secret\n"
                          "y = cached._key()\nz = app.store.notes._secret\n"),
    }
    packages = {"app", "app.store", "app.ui"}
    assert private_uses(sources, packages) == [
        "app.ui.words:2 uses app.store.notes._secret",
        "app.pages.one:3 uses app.store.notes._secret",
        "app.pages.one:4 uses app.ui.cached._key",
        "app.pages.one:5 uses app.store.notes._secret",
    ]
