"""The tree shows the architecture (issue 48): ``docs/architecture.md`` opens with a map that names every folder
``ls`` shows at the top, in each corpus unit and in ``ui/``; ``ui/`` holds feature packages (each saying what it
owns, none over about 12 modules) and only a handful of shared modules; every corpus unit is laid out alike."""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED_UI_MODULES = {"__init__.py", "cached.py", "cache_keys.py", "store.py", "widgets.py", "glossary.py"}
MAX_MODULES_PER_PACKAGE = 12


def _folders(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith((".", "__")))


def _tree_map() -> str:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text[text.index("## The tree"):text.index("## Modules")]
    return section[section.index("```"):section.rindex("```")]


def test_the_map_names_every_folder_of_the_tree():
    shown = _tree_map()
    top = [name for name in _folders(ROOT) if name not in {"test-artifacts"}]
    missing = [name for name in top if not re.search(rf"(^|\s){re.escape(name)}/", shown)]
    missing += [f"ui/{name}" for name in _folders(ROOT / "ui") if not re.search(rf"\s{re.escape(name)}/", shown)]
    units = _folders(ROOT / "corpora")
    missing += [f"corpora/{name}" for name in units if f" {name}/" not in shown]
    missing += [f"corpora/<name>/{part}" for unit in units for part in _folders(ROOT / "corpora" / unit)
                if f"<name>/{part}/" not in shown]
    assert missing == []


def test_ui_top_level_holds_feature_packages_and_a_handful_of_shared_modules():
    modules = {p.name for p in (ROOT / "ui").glob("*.py")}
    assert modules <= SHARED_UI_MODULES, modules - SHARED_UI_MODULES
    for package in _folders(ROOT / "ui"):
        if package == "assets":
            continue
        init = ROOT / "ui" / package / "__init__.py"
        assert init.is_file() and ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), package
        assert len(list((ROOT / "ui" / package).glob("*.py"))) - 1 <= MAX_MODULES_PER_PACKAGE, package


def test_every_corpus_unit_has_a_data_part_and_views():
    for unit in _folders(ROOT / "corpora"):
        assert (ROOT / "corpora" / unit / "data" / "__init__.py").is_file(), unit
        views = ROOT / "corpora" / unit / "views" / "__init__.py"
        assert "VIEWS = CorpusViews(" in views.read_text(encoding="utf-8"), unit
