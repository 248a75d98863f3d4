"""The package: its dependencies are the pinned runtime requirements, and the ``dialogue-dashboard`` command
sets the server's environment from its flags (the installed wheel itself: tests/e2e/test_installed_wheel.py)."""
from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

import pytest

from dialogue_dashboard import app_folder
from dialogue_dashboard.cli import main, serve_environment, serve_variables

ROOT = Path(__file__).resolve().parents[2]


def pinned_requirements() -> list[str]:
    """requirements.txt's pins, in its order (also the installed wheel's check of its metadata)."""
    return [line.strip() for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def test_the_package_depends_on_exactly_the_pinned_runtime_requirements():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pinned = pinned_requirements()
    assert project["dependencies"] == pinned
    assert all("==" in requirement for requirement in pinned)
    assert project["scripts"]["dialogue-dashboard"] == "dialogue_dashboard.cli:main"


def test_in_a_checkout_the_app_is_the_checkouts_own():
    assert app_folder() == ROOT and (app_folder() / "server.py").is_file()


def _serve_args(**given) -> argparse.Namespace:
    values = {flag.replace("-", "_"): None for flag in serve_variables()}
    values.update(port=8600, host="0.0.0.0")
    values.update(given)
    return argparse.Namespace(**values)


def test_serve_flags_set_their_variables_as_absolute_paths_and_keep_the_rest(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = serve_environment(_serve_args(codraw="corpora/CoDraw_1_0.json", store="postgresql://u@db/lab"),
                            {"MINECRAFT_DATA": "~/mc", "GAME_OF_SORTS_DATA": "", "CODRAW_DATA": "/old"})
    assert env["CODRAW_DATA"] == str(tmp_path / "corpora" / "CoDraw_1_0.json")  # the flag wins over the variable
    assert env["DIALOGUE_NOTES_DB"] == "postgresql://u@db/lab"  # a URL as it is
    assert env["MINECRAFT_DATA"] == str(Path("~/mc").expanduser())  # from the environment, made absolute
    assert env["GAME_OF_SORTS_DATA"] == ""  # empty: the demo
    assert "CODRAW_CLIPART" not in env
    assert (env["STREAMLIT_SERVER_PORT"], env["STREAMLIT_SERVER_ADDRESS"]) == ("8600", "0.0.0.0")


def test_every_data_variable_of_the_readme_has_a_serve_flag():
    variables = {variable for variable, _ in serve_variables().values()}
    assert {"codraw", "codraw-clipart", "gos", "gos-images", "minecraft"} <= set(serve_variables())  # as documented
    assert {"CODRAW_DATA", "CODRAW_CLIPART", "GAME_OF_SORTS_DATA", "GAME_OF_SORTS_IMAGES", "MINECRAFT_DATA",
            "DIALOGUE_RUNS_DIR", "DIALOGUE_LAYERS_DIR", "DIALOGUE_NOTES_DB", "DIALOGUE_CACHE_DIR"} <= variables


def test_the_data_tools_answer_as_python_m_data_access_does(tmp_path, capsys):
    assert main(["summary", "codraw", str(tmp_path / "absent.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "absent.json" in err


def test_make_installs_the_dashboard_itself_into_its_venv():
    """``make run`` and ``make test`` install the checkout editable (issue 48): ``import dialogue_dashboard`` works
    in the venv's notebooks, a plugin can depend on the distribution, and the corpora's and views' entry points are
    registered as an installed plugin's are."""
    import importlib.metadata
    import json

    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert makefile.count("-m pip install --quiet --no-deps --editable .") == 2  # the run stamp and the test stamp
    distribution = importlib.metadata.distribution("dialogue-dashboard")
    installed = json.loads(distribution.read_text("direct_url.json") or "{}")
    assert installed.get("dir_info", {}).get("editable") is True
    if installed.get("url") != ROOT.as_uri():  # a second worktree sharing another checkout's venv
        pytest.skip(f"the venv's editable install is of {installed.get('url')}, not of this checkout")
    groups = {(entry.group, entry.name): entry.value for entry in distribution.entry_points}
    assert groups[("dialogue_dashboard.corpora", "codraw")] == "corpora.codraw.data"
    assert groups[("dialogue_dashboard.views", "minecraft")] == "corpora.minecraft.views"
