"""The README says what the code does: its table of environment variables lists exactly the variables the
code reads, its table of pages names exactly app.py's pages, and every deep-link example in it opens (on the
demo corpora, placeholders filled in) without a warning and keeps its state."""
from __future__ import annotations

import ast
import functools
import re
from pathlib import Path
from urllib.parse import parse_qsl

import pytest

from data_access.common import CORPUS_NAMES
from data_access.corpora import corpus_module, demo_path, load_path
from data_access.runs.demo import RUN_NAMES
from tests.unit.test_private_names import dotted_name

from .conftest import open_page

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CODE = [ROOT / "app.py", *(path for folder in ("data_access", "ui", "pages") for path in sorted((ROOT / folder).rglob("*.py")))]
CONTRACT_VARIABLES = ("DATA_VARIABLE", "ASSET_VARIABLE")  # corpus package members naming a variable
ENV_CALLS = {"os.environ.get", "os.getenv", "os.environ.setdefault", "environ.get", "getenv", "environ.setdefault"}


def section(title: str, text: str = README) -> str:
    """The README's section under the heading ``title`` (any level), up to the next heading of any level."""
    match = re.search(rf"^#+ {re.escape(title)}\n(.*?)(?=^#)", text, flags=re.M | re.S)
    assert match, f"the README has no section “{title}”"
    return match.group(1)


def table_first_cells(text: str) -> list[str]:
    """The first cell of each body row of the first Markdown table in ``text``."""
    rows = [line for line in text.splitlines() if line.startswith("|")]
    assert len(rows) > 2 and set(rows[1].replace("|", "").split()) == {"---"}, rows[:2]
    return [row.split("|")[1].strip() for row in rows[2:]]


# ------------------------------------------------------------------------------------ environment variables

def readme_variables(text: str = README) -> list[str]:
    cells = table_first_cells(section("Your data", text))
    assert all(re.fullmatch(r"`[A-Z][A-Z0-9_]*`", cell) for cell in cells), cells
    return [cell.strip("`") for cell in cells]


@functools.lru_cache(maxsize=None)
def _parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=None)
def _module_constants(path: Path, depth: int) -> dict[str, ast.expr]:
    """``_constants`` of a module imported from (the same modules are imported from by most files)."""
    return _constants(_parsed(path), depth)


def _constants(tree: ast.Module, depth: int = 0) -> dict[str, ast.expr]:
    """``NAME = value`` assignments of the module (module level first, then local ones not shadowing them), and
    the constants it imports by name from the app's own modules (``from data_access.access import ROLES_VARIABLE``)."""
    imported: dict[str, ast.expr] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in ("data_access", "ui", "pages") and depth < 2:
            base = ROOT / node.module.replace(".", "/")
            source = base.with_suffix(".py") if base.with_suffix(".py").exists() else base / "__init__.py"
            if source.exists():
                theirs = _module_constants(source, depth + 1)
                imported |= {alias.asname or alias.name: theirs[alias.name] for alias in node.names if alias.name in theirs}
    anywhere = {target.id: node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                for target in node.targets if isinstance(target, ast.Name)}
    return imported | anywhere | {target.id: node.value for node in tree.body if isinstance(node, ast.Assign)
                                  for target in node.targets if isinstance(target, ast.Name)}


def _variable_names(node: ast.expr, constants: dict[str, ast.expr], depth: int = 0) -> set[str] | None:
    """The variable name(s) an argument stands for: a string, a name assigned one, or an item of a module's
    dict of them (``DATA_VARIABLES[corpus]``, ``ASSET_VARIABLES.get(corpus)`` → all its values), a corpus
    package's member naming one (``package.DATA_VARIABLE`` → its value in every corpus); None when it cannot be
    told."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.Attribute) and node.attr in CONTRACT_VARIABLES:  # package.DATA_VARIABLE
        return {v for v in (getattr(corpus_module(name), node.attr) for name in CORPUS_NAMES) if v}
    if isinstance(node, ast.Name) and node.id in constants and depth < 3:
        return _variable_names(constants[node.id], constants, depth + 1)
    table = None
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        table = constants.get(node.value.id)
    elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
          and isinstance(node.func.value, ast.Name)):
        table = constants.get(node.func.value.id)
    if isinstance(table, ast.Dict) and all(isinstance(v, ast.Constant) and isinstance(v.value, str) for v in table.values):
        return {v.value for v in table.values}
    if (isinstance(table, ast.Call) and ast.unparse(table.func) == "CorpusAttribute" and table.args
            and isinstance(table.args[0], ast.Constant) and table.args[0].value in CONTRACT_VARIABLES):
        # the registry's table of a corpus package member naming a variable (``CorpusAttribute("DATA_VARIABLE")``)
        return {v for v in (getattr(corpus_module(name), table.args[0].value) for name in CORPUS_NAMES) if v}
    return None


def code_variables() -> set[str]:
    """Every environment variable the app's code reads: ``os.environ.get / [] / setdefault``, ``os.getenv``,
    and calls of a module's own helper that passes its parameter on to one of those (``sources._env_path``)."""
    found: set[str] = set()
    unresolved: list[str] = []
    for path in CODE:
        tree = _parsed(path)
        constants = _constants(tree)
        reads: list[ast.expr] = []  # the name argument of each read
        helpers: set[str] = set()  # functions that read the variable named by their first parameter
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and dotted_name(node.func) in ENV_CALLS and node.args:
                reads.append(node.args[0])
            elif isinstance(node, ast.Subscript) and dotted_name(node.value) in ("os.environ", "environ"):
                reads.append(node.slice)
        for function in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
            parameters = [a.arg for a in function.args.args]
            for node in ast.walk(function):
                if (isinstance(node, ast.Call) and dotted_name(node.func) in ENV_CALLS and node.args
                        and isinstance(node.args[0], ast.Name) and parameters and node.args[0].id == parameters[0]):
                    helpers.add(function.name)
                    reads.remove(node.args[0])
        reads += [node.args[0] for node in ast.walk(tree)
                  if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in helpers and node.args]
        for argument in reads:
            names = _variable_names(argument, constants)
            if names is None:
                unresolved.append(f"{path.relative_to(ROOT)}:{argument.lineno}: {ast.unparse(argument)}")
            else:
                found |= names
    assert not unresolved, f"cannot tell which environment variable these read (name it in a constant): {unresolved}"
    return found


def test_the_environment_variable_table_lists_exactly_the_variables_the_code_reads():
    documented = readme_variables()
    assert len(documented) == len(set(documented)), documented
    read = code_variables()
    assert {"CODRAW_DATA", "DIALOGUE_RUNS_DIR", "DIALOGUE_CODER"} <= read  # the scan sees the three ways of reading
    assert set(documented) == read, {"read but not in the README": read - set(documented),
                                     "in the README but never read": set(documented) - read}


# ------------------------------------------------------------------------------------------------------ pages

def app_page_titles() -> list[str]:
    """The ``title=`` of every ``st.Page`` in app.py, in the sidebar's order."""
    tree = ast.parse((ROOT / "app.py").read_text(encoding="utf-8"))
    titles = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "st.Page":
            title = next(k.value for k in node.keywords if k.arg == "title")
            titles.append(ast.literal_eval(title))
    return titles


def readme_page_names(text: str = README) -> list[str]:
    """The page names of the README's Pages table (a row may name several pages, separated by commas)."""
    return [name.strip() for cell in table_first_cells(section("Pages", text)) for name in cell.split(",")]


def test_the_pages_table_names_exactly_the_apps_pages_in_their_order():
    titles = app_page_titles()
    assert len(titles) >= 15 and "CoDraw scores & peeks" in titles
    assert readme_page_names() == titles


def test_the_page_name_check_sees_a_renamed_or_missing_page():
    renamed = README.replace("peeks, Durations, Game Of Sorts", "peeks, Timings, Game Of Sorts")
    assert renamed != README and "Timings" in readme_page_names(renamed) and "Durations" not in readme_page_names(renamed)
    dropped = README.replace("| Compare | two dialogs", "| two dialogs")
    assert dropped != README and "Compare" not in readme_page_names(dropped)


# ------------------------------------------------------------------------------------------------ deep links

LINKS = re.findall(r"`(/[a-z_]+\?[^`\s]+)`", README)
SUFFIXES = sorted(set(re.findall(r"`(&[a-z_]+=[^`\s]+)`", README)))  # (said in two places)


def _demo_dialog(corpus: str, params: dict[str, str]) -> str:
    """The first demo dialog of ``corpus`` that has the link's step (in its round)."""
    loaded = load_path(corpus, demo_path(corpus))
    module = corpus_module(corpus)
    turn, round = int(params.get("turn", 1)), int(params["round"]) if "round" in params else None
    return next(d for d in loaded.dialogs["dialog_id"] if module.step_count(loaded, d, round) >= turn)


def filled_in(link: str) -> tuple[str, dict[str, str]]:
    """The page and parameters of a README link, each ``<placeholder>`` replaced by a real demo value."""
    page, query = link[1:].split("?", 1)
    params = dict(parse_qsl(query, keep_blank_values=True))
    for name, value in params.items():
        if value.startswith("<"):
            assert value.endswith(">") and name in ("dialog", "run"), f"unknown placeholder {name}={value} in {link}"
            params[name] = _demo_dialog(params["corpus"], params) if name == "dialog" else RUN_NAMES[0]
    return page, params


def test_the_readme_has_deep_link_examples_of_every_corpus():
    assert {dict(parse_qsl(link.split("?", 1)[1]))["corpus"] for link in LINKS} == {"codraw", "gos", "minecraft"}
    assert SUFFIXES == ["&run=<name>"]


@pytest.mark.parametrize("link", [link + suffix for link in LINKS for suffix in ("", *SUFFIXES)])
def test_every_deep_link_example_opens_without_a_warning(link):
    page, params = filled_in(link)
    assert f'url_path="{page}"' in (ROOT / "app.py").read_text(encoding="utf-8"), f"{page} is no page of app.py"
    at = open_page(page, timeout=180, **params)
    assert not at.warning and not at.error, [w.value for w in at.warning] + [e.value for e in at.error]
    assert {name: at.query_params[name] for name in params} == params  # the link's state, not a fallback
    if "dialog" in params:
        assert at.selectbox(key=f"{params['corpus']}_dialog").value == params["dialog"]
    if "run" in params:
        assert at.selectbox(key="replay_run").value == params["run"]
