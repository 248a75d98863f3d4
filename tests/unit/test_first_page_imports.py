"""What the first page after a server restart has to import: the server imports the heavy libraries as it
starts (``ui.server.warm_imports``), and the corpus-specific UI parts are imported when first used, so that the
Data and Browse pages do not import every corpus's replay section (``ui.shell.corpus_views``)."""
import dataclasses
import importlib
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def test_the_warm_imports_import_their_modules_in_the_background_and_survive_a_missing_one():
    out = _run("import sys\nfrom ui.server import warm_imports\n"
               "thread = warm_imports.start(('colorsys', 'no_such_module_here', 'this'))\nthread.join(30)\n"
               "print(thread.daemon, 'colorsys' in sys.modules, 'this' in sys.modules)")
    assert out.split()[-3:] == ["True", "True", "True"]


def test_every_module_the_server_warms_exists():
    from ui.server import warm_imports

    for name in warm_imports.MODULES:
        importlib.import_module(name)


def test_server_py_starts_the_warm_imports():
    assert "warm_imports.start()" in (ROOT / "server.py").read_text()


def test_the_corpus_views_import_no_replay_section_until_one_is_used():
    out = _run("import sys\nfrom ui.shell.corpus_edge import resolve\nfrom ui.shell.corpus_views import views_of\n"
               "views_of(resolve('codraw')); views_of(resolve('gos'))\n"
               "print(sorted(m for m in sys.modules if m.startswith(('ui.replay', 'corpora.codraw.views.', "
               "'corpora.gos.views.'))))")
    assert out.strip().splitlines()[-1] == "[]"


def test_every_lazy_corpus_view_names_a_function_that_exists():
    from data_access.registry import CORPUS_NAMES
    from ui.shell.corpus_edge import resolve
    from ui.shell.corpus_views import GENERIC, views_of

    every = [views_of(resolve(name)) for name in CORPUS_NAMES] + [GENERIC]
    parts = [value for views in every for value in (getattr(views, f.name) for f in dataclasses.fields(views))]
    parts += [getattr(durations, f.name) for durations in parts if dataclasses.is_dataclass(durations)
              for f in dataclasses.fields(durations)]
    targets = [part.target for part in parts if hasattr(part, "target")]
    assert len(targets) >= 30
    for module, function in targets:
        assert callable(getattr(importlib.import_module(module), function)), (module, function)


def test_the_chart_helpers_import_a_figures_module_only_when_a_page_asks_for_it():
    out = _run("import sys\nimport ui.analysis.charts\nbefore = sorted(m for m in sys.modules if m.startswith("
               "('data_access.figures.', 'corpora.codraw.data.figures', 'corpora.gos.data.figures', "
               "'corpora.minecraft.data.figures')))\nfrom ui.analysis.charts import overview_figures\n"
               "print(before, overview_figures.__name__)")
    assert out.strip().splitlines()[-1] == "[] data_access.figures.overview"


def test_every_figures_module_of_the_chart_helpers_exists():
    import ui.analysis.charts

    for name, module in ui.analysis.charts.FIGURE_MODULES.items():
        assert getattr(ui.analysis.charts, name) is importlib.import_module(module)
