"""A corpus added by an installed package, with no change to this repository: the tiny test corpus
(``tests/fixtures/tinycorpus``) is packed as a wheel of its own whose entry point joins the group
``dialogue_dashboard.corpora``, installed into a fresh virtual environment, and every page is opened on it there
(the tests of ``test_fourth_corpus.py``, which then find the corpus installed instead of registering it). The
wheel is written here by hand (a wheel is a zip with its metadata), so that no build backend is downloaded."""
from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "tinycorpus"
DISTRIBUTION, VERSION, PACKAGE = "dialogue_tiny_corpus", "1.0", "tinycorpus"


def _record_line(name: str, data: bytes) -> list[str]:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return [name, f"sha256={digest}", str(len(data))]


def build_wheel(folder: Path) -> Path:
    """The tiny corpus as an installable wheel declaring ``tiny = tinycorpus`` in ``dialogue_dashboard.corpora`` and
    its views, ``tiny = tinycorpus.views``, in ``dialogue_dashboard.views``."""
    info = f"{DISTRIBUTION}-{VERSION}.dist-info"
    files = {f"{PACKAGE}/{path.name}": path.read_bytes() for path in sorted(FIXTURE.glob("*.py"))}
    files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {DISTRIBUTION}\nVersion: {VERSION}\n".encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files[f"{info}/entry_points.txt"] = (f"[dialogue_dashboard.corpora]\ntiny = {PACKAGE}\n\n"
                                         f"[dialogue_dashboard.views]\ntiny = {PACKAGE}.views\n").encode()
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for name, data in files.items():
        writer.writerow(_record_line(name, data))
    writer.writerow([f"{info}/RECORD", "", ""])
    files[f"{info}/RECORD"] = record.getvalue().encode()
    wheel = folder / f"{DISTRIBUTION}-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return wheel


def fresh_environment(folder: Path) -> tuple[Path, Path]:
    """A new virtual environment that sees this one's libraries (a ``.pth`` file naming its site-packages and the
    checkout) but none of its own packages: (its python, its site-packages)."""
    venv.create(folder, with_pip=False, symlinks=True)
    python = folder / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "dashboard.pth").write_text(f"{ROOT}\n{sysconfig.get_paths()['purelib']}\n", encoding="utf-8")
    return python, site


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("plugin")
    python, site = fresh_environment(base / "venv")
    wheel = build_wheel(base)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                    "--no-index", str(wheel)], check=True, capture_output=True, text=True)
    assert (site / PACKAGE / "__init__.py").is_file()
    return python


def _run(python: Path, code: str) -> str:
    return subprocess.run([str(python), "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": ""}).stdout


def test_the_installed_plugin_is_offered_after_the_built_in_corpora(installed):
    out = _run(installed, "import dialogue_dashboard as dd\nc = dd.open_corpus('tiny')\n"
                          "print(dd.corpora(), c.package.__name__, len(c.dialogs))")
    assert out.split(None, 3)[:3] == ["['codraw',", "'gos',", "'minecraft',"]
    assert "'tiny'] tinycorpus" in out


def test_without_the_plugin_there_is_no_such_corpus():
    out = _run(Path(sys.executable), "from data_access.registry import CORPUS_NAMES\nprint(CORPUS_NAMES)")
    assert "tiny" not in out


def test_every_page_opens_on_the_installed_plugin(installed):
    result = subprocess.run([str(installed), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                             "--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml"),
                             str(ROOT / "tests" / "app" / "test_fourth_corpus.py")],
                            cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ""})
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert " passed" in result.stdout and "failed" not in result.stdout
