"""The ``dialogue-dashboard`` command: ``serve`` the app, or run one of the data tools of ``python -m
data_access`` (``summary``, ``run-summary``, ``layer-summary``, ``cache``, ``leaderboard``, ``words``, ``sql``: the
same arguments, the same JSON, the same exit codes).

``serve`` takes a flag for every data variable; a flag left out keeps the variable's value from the
environment, and a variable unset or empty means the built-in demo corpus. Paths are made absolute before the
server starts in the app's own folder (where Streamlit finds the app's configuration, ``.streamlit/``)."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Optional, Sequence

from . import app_folder

# flag -> (environment variable, what it names); paths unless the value is a database URL. Each registered corpus
# adds its own first (``corpus_flags``).
SETTING_VARIABLES = {
    "runs": ("DIALOGUE_RUNS_DIR", "model runs: one sub-folder per corpus"),
    "layers": ("DIALOGUE_LAYERS_DIR", "published annotation layers"),
    "store": ("DIALOGUE_NOTES_DB", "notes and annotations: a SQLite file or a postgresql:// URL"),
    "cache": ("DIALOGUE_CACHE_DIR", "where parsed frames are cached"),
    "roles": ("DIALOGUE_ROLES", "the roles file of a deployment with sign-in"),
}


def corpus_flags() -> dict[str, tuple[str, str]]:
    """A flag per registered corpus for its files (``--codraw``: its ``DATA_VARIABLE``) and one for its images or
    clip art (``--codraw-clipart``: ``--<name>-<ASSET_KIND>``, its ``ASSET_VARIABLE``), a plugin's too."""
    from data_access.registry import CORPUS_NAMES, CORPUS_TITLES, CorpusAttribute

    data, assets = CorpusAttribute("DATA_VARIABLE"), CorpusAttribute("ASSET_VARIABLE")
    kinds = CorpusAttribute("ASSET_KIND", missing="assets")
    flags: dict[str, tuple[str, str]] = {}
    for name in CORPUS_NAMES:
        flags[name] = (data[name], f"the {CORPUS_TITLES[name]} corpus: its file or folder")
        if assets[name]:
            flags[f"{name}-{kinds[name]}"] = (assets[name], f"the {CORPUS_TITLES[name]} corpus's {kinds[name]} folder")
    return flags


def serve_variables() -> dict[str, tuple[str, str]]:
    """Every flag of ``serve``: the corpora's, then the settings'."""
    return {**corpus_flags(), **SETTING_VARIABLES}


DATA_TOOLS = ("summary", "run-summary", "layer-summary", "cache", "leaderboard", "words", "sql", "slice", "contrast")


def _absolute(value: str) -> str:
    """A path made absolute (``~`` expanded); a URL, or an empty value, as it is."""
    if not value.strip() or "://" in value:
        return value
    return str(Path(value).expanduser().resolve())


def serve_environment(args: argparse.Namespace, environ: Optional[dict] = None) -> dict[str, str]:
    """The server's environment: ``environ`` with each given flag's variable set, every path made absolute."""
    env = dict(os.environ if environ is None else environ)
    for flag, (variable, _) in serve_variables().items():
        given = getattr(args, flag.replace("-", "_"))
        if given is not None:
            env[variable] = given
        if env.get(variable):
            env[variable] = _absolute(env[variable])
    env["STREAMLIT_SERVER_PORT"] = str(args.port)
    env["STREAMLIT_SERVER_ADDRESS"] = args.host
    env.setdefault("STREAMLIT_SERVER_HEADLESS", "true")
    return env


def serve_command(folder: Path) -> list[str]:
    return [sys.executable, "-m", "streamlit", "run", str(folder / "server.py")]


def _serve_parser(sub) -> None:
    serve = sub.add_parser("serve", help="serve the dashboard (the demo corpora unless told otherwise)",
                           description="Serve the dashboard. Every flag defaults to its environment variable, "
                                       "then to the built-in demo.")
    for flag, (variable, what) in serve_variables().items():
        serve.add_argument(f"--{flag}", metavar="URL" if flag == "store" else "PATH", help=f"{what} (default: ${variable})")
    serve.add_argument("--port", type=int, default=int(os.environ.get("STREAMLIT_SERVER_PORT") or 8501),
                       help="the port (default: $STREAMLIT_SERVER_PORT, else 8501)")
    serve.add_argument("--host", default=os.environ.get("STREAMLIT_SERVER_ADDRESS") or "localhost",
                       help="the address to listen on (default: localhost; 0.0.0.0 for every interface)")


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in DATA_TOOLS:
        from data_access.__main__ import main as data_tools

        return data_tools(argv)
    parser = argparse.ArgumentParser(prog="dialogue-dashboard", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="{serve," + ",".join(DATA_TOOLS) + "}")
    _serve_parser(sub)
    for tool in DATA_TOOLS:
        sub.add_parser(tool, help=f"as python -m data_access {tool} (see its --help)")
    args = parser.parse_args(argv)
    folder = app_folder()
    env = serve_environment(args)
    os.chdir(folder)  # Streamlit reads the app's configuration from .streamlit/ in the folder it starts in
    os.execve(sys.executable, serve_command(folder), env)
    return 0  # not reached: the server replaces this process
