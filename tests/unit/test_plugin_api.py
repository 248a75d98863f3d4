"""The public plugin API (``dialogue_dashboard.plugin`` and ``.plugin.views``, issue 48): every name it lists
resolves, its type-checking imports and its table agree, it imports no Streamlit, and the corpora (the built-in
units and the test plugin) import nothing else of the dashboard."""
from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
API = ("dialogue_dashboard.plugin", "dialogue_dashboard.plugin.views")
OWN = ("data_access", "ui", "pages", "dialogue_dashboard", "corpora")


def _type_checking_imports(module: str) -> dict[str, tuple[str, str]]:
    path = ROOT / (module.replace(".", "/") + ("/__init__.py" if module.endswith("plugin") else ".py"))
    tree = ast.parse(path.read_text(encoding="utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING")
    return {alias.asname or alias.name: (node.module, alias.name) for node in block.body
            if isinstance(node, ast.ImportFrom) for alias in node.names}


@pytest.mark.parametrize("module", API)
def test_every_name_resolves_and_agrees_with_its_typed_import(module):
    api = importlib.import_module(module)
    assert sorted(api.__all__) == sorted(api.NAMES)
    assert _type_checking_imports(module) == api.NAMES
    for name in api.NAMES:
        assert getattr(api, name) is not None, name


def test_the_data_api_and_every_data_part_import_no_streamlit():
    code = ("import sys\nimport dialogue_dashboard.plugin as p\n[getattr(p, n) for n in p.NAMES]\n"
            "from data_access.registry import CORPUS_NAMES, corpus_module\n"
            "[corpus_module(n) for n in CORPUS_NAMES]\n"
            "import corpora.codraw.data.figures, corpora.gos.data.figures, corpora.minecraft.data.figures\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('streamlit', 'ui')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def _dashboard_imports(folder: Path, own: str) -> list[str]:
    found = []
    for file in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            modules = [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else \
                [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            for module in modules:
                if module.split(".")[0] in OWN and module not in API and not module.startswith(own):
                    found.append(f"{file.relative_to(ROOT)}:{node.lineno} {module}")
    return found


def test_the_corpora_import_only_the_plugin_api_and_their_own_package():
    units = sorted(p for p in (ROOT / "corpora").iterdir() if (p / "data").is_dir())
    found = [line for unit in units for line in _dashboard_imports(unit, f"corpora.{unit.name}")]
    found += _dashboard_imports(ROOT / "tests" / "fixtures" / "tinycorpus", "tests.fixtures.tinycorpus")
    assert found == []
