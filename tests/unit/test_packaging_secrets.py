"""The sign-in secrets never leave the machine: ``.streamlit/secrets.toml`` (with ``client_secret`` and
``cookie_secret``) is ignored by git, and neither the sdist nor the wheel carries a secrets file, even when one
lies in the checkout. The sdist is built here with the project's own build backend (hatchling, as pinned in
pyproject.toml)."""
from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MARKER = "-".join(["client", "secret", "that", "must", "not", "ship"])  # joined here: this file ships
SECRETS = f"""[auth]
redirect_uri = "https://dialogue.lab.example/oauth2callback"
cookie_secret = "cookie-secret-that-must-not-ship"
client_id = "dashboard"
client_secret = "{MARKER}"
server_metadata_url = "https://accounts.example/.well-known/openid-configuration"
"""


def test_git_ignores_secrets_files():
    for path in (".streamlit/secrets.toml", "secrets.toml", "deploy/lab.secrets.toml"):
        ignored = subprocess.run(["git", "check-ignore", "--no-index", "-q", path], cwd=ROOT)
        assert ignored.returncode == 0, f"{path} is not ignored by git"


@pytest.fixture(scope="module")
def backend(tmp_path_factory) -> Path:
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]["requires"]
    target = tmp_path_factory.mktemp("backend")
    installed = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--target", str(target), *requires],
                               capture_output=True, text=True)
    if installed.returncode != 0:
        pytest.skip(f"the build backend {requires} could not be installed: {installed.stderr.strip()[-300:]}")
    return target


def _checkout_with_secrets(tmp_path: Path) -> Path:
    """The checkout's files as git knows them, plus the secrets file a lab admin has put beside them."""
    tree = tmp_path / "checkout"
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, tree / name)
    (tree / ".streamlit" / "secrets.toml").write_text(SECRETS, encoding="utf-8")
    (tree / "secrets.toml").write_text(SECRETS, encoding="utf-8")
    return tree


def _build(tree: Path, backend: Path, kind: str) -> Path:
    dist = tree / "dist"
    code = f"import hatchling.build as b; print(b.build_{kind}({str(dist)!r}))"
    built = subprocess.run([sys.executable, "-c", code], cwd=tree, env={"PYTHONPATH": str(backend), "PATH": "/usr/bin:/bin"},
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    return dist / built.stdout.strip().splitlines()[-1]


def test_neither_the_sdist_nor_the_wheel_carries_the_secrets(tmp_path, backend):
    tree = _checkout_with_secrets(tmp_path)
    sdist = _build(tree, backend, "sdist")
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
        contents = b"".join(archive.extractfile(m).read() for m in archive.getmembers() if m.isfile())
    assert any(name.endswith("/.streamlit/config.toml") for name in names)  # the configuration does ship
    assert not [name for name in names if name.endswith("secrets.toml")]
    assert MARKER.encode() not in contents
    wheel = _build(tree, backend, "wheel")
    with zipfile.ZipFile(wheel) as archive:
        assert not [name for name in archive.namelist() if name.endswith("secrets.toml")]
        assert all(MARKER.encode() not in archive.read(name) for name in archive.namelist())
