"""What the app (`make run`) and the tests (`make test`) need from the operating system, and installing it.

Run by the Makefile with the system's python3 before the venv exists, so standard library only. As root on
Debian or Ubuntu (apt-get present) it installs what is missing; anywhere else (no root, another OS, or
DIALOGUE_NO_APT=1) it prints each missing thing with the command that installs it and exits 0: the tests that
need it then skip with the same reason (``tests/system.py`` reads ``REQUIREMENTS`` from here), unless
DIALOGUE_REQUIRE_ALL=1 (or DIALOGUE_REQUIRE_<NAME>=1) turns those skips into failures, as ``.ci/run`` does.

    python3 scripts/system_packages.py run     # the caption fonts of the GIF / PNG exports
    python3 scripts/system_packages.py test    # the fonts, Chromium, PostgreSQL, nginx and the minimal TeX
    python3 scripts/system_packages.py check   # as `test`, but only report (installs nothing)
"""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable


def _font(*families: str) -> Callable[[], bool]:
    """Whether fontconfig lists the regular face of one of ``families`` (an exact family match, as
    data_access/fonts.py asks)."""
    def check() -> bool:
        fc_list = shutil.which("fc-list")
        if fc_list is None:
            return False
        for family in families:
            try:
                listed = subprocess.run([fc_list, "--format", "%{file}\n", f"{family}:style=Regular"],
                                        capture_output=True, text=True, timeout=30, check=False).stdout
            except (OSError, subprocess.SubprocessError):
                return False
            if listed.strip():
                return True
        return False
    return check


def _tex_file(name: str) -> Callable[[], bool]:
    def check() -> bool:
        kpsewhich = shutil.which("kpsewhich")
        if kpsewhich is None:
            return False
        try:
            return bool(subprocess.run([kpsewhich, name], capture_output=True, text=True, timeout=30).stdout.strip())
        except (OSError, subprocess.SubprocessError):
            return False
    return check


def chromium_path() -> Path | None:
    """Debian's Chromium, the one browser the tests drive (tests/e2e/conftest.py; a browser is never downloaded)."""
    path = Path("/usr/bin/chromium")
    return path if path.exists() else None


def nginx_path() -> str | None:
    return shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)


def postgres_bin_dir() -> Path | None:
    """The PostgreSQL server binaries: DIALOGUE_PG_BIN, Debian's /usr/lib/postgresql/<version>/bin, then PATH."""
    configured = os.environ.get("DIALOGUE_PG_BIN")
    candidates = [configured] if configured else []
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name)
                         if Path(p).parent.name.isdigit() else 0, reverse=True)
    for candidate in candidates:
        if candidate and (Path(candidate) / "initdb").is_file():
            return Path(candidate)
    found = shutil.which("initdb")
    return Path(found).parent if found else None


@dataclass(frozen=True)
class Requirement:
    """One thing from the operating system: its name in DIALOGUE_REQUIRE_<NAME> and in skip reasons, what
    needs it, the Debian / Ubuntu package that provides it, and whether it is there."""
    name: str
    what: str
    package: str
    present: Callable[[], bool]
    needed_by: tuple[str, ...] = ("test",)
    recommends: bool = True  # False: apt-get --no-install-recommends (the TeX set would pull in gigabytes)

    @property
    def install(self) -> str:
        return f"apt-get install {self.package}"

    def reason(self) -> str:
        """The skip reason of a test that needs it."""
        return f"{self.what} is missing: {self.install} (as root, `make test` installs it)"


# The caption fonts' families are data_access/fonts.py's SLOTS (tests/unit/test_system_packages.py checks they agree).
REQUIREMENTS: tuple[Requirement, ...] = (
    Requirement("fontconfig", "fontconfig (fc-list, through which the caption fonts are found)", "fontconfig",
                lambda: shutil.which("fc-list") is not None, ("run", "test")),
    Requirement("fonts_core", "the Noto Sans and Noto Sans Symbols caption fonts", "fonts-noto-core",
                lambda: _font("Noto Sans")() and _font("Noto Sans Symbols")(), ("run", "test")),
    Requirement("fonts_emoji", "an emoji caption font (Noto Emoji or Symbola)", "fonts-symbola",
                _font("Noto Emoji", "Symbola"), ("run", "test")),
    Requirement("fonts_cjk", "the CJK caption font (Noto Sans CJK)", "fonts-noto-cjk",
                _font("Noto Sans CJK SC"), ("run", "test")),
    Requirement("chromium", "Debian's Chromium (/usr/bin/chromium) for the browser tests and chart exports",
                "chromium", lambda: chromium_path() is not None),
    Requirement("postgres", "the PostgreSQL server (initdb, pg_ctl) for the PostgreSQL store tests", "postgresql",
                lambda: postgres_bin_dir() is not None),
    Requirement("nginx", "nginx for the two-server deployment test", "nginx", lambda: nginx_path() is not None),
    Requirement("pdflatex", "pdflatex for compiling the LaTeX exports", "texlive-latex-base",
                lambda: shutil.which("pdflatex") is not None, recommends=False),
    Requirement("latex_recommended", "booktabs.sty (LaTeX tables)", "texlive-latex-recommended",
                _tex_file("booktabs.sty"), recommends=False),
    Requirement("latex_fonts", "the recommended TeX fonts", "texlive-fonts-recommended", _tex_file("uhvr8t.tfm"),
                recommends=False),
    Requirement("lmodern", "lmodern.sty (the LaTeX exports' font)", "lmodern", _tex_file("lmodern.sty"),
                recommends=False),
    Requirement("pdftotext", "pdftotext for reading the compiled PDFs back", "poppler-utils",
                lambda: shutil.which("pdftotext") is not None, recommends=False),
)

BY_NAME = {requirement.name: requirement for requirement in REQUIREMENTS}


def missing(purpose: str = "test") -> list[Requirement]:
    return [r for r in REQUIREMENTS if purpose in r.needed_by and not r.present()]


def _can_install() -> bool:
    return (os.environ.get("DIALOGUE_NO_APT") != "1" and hasattr(os, "geteuid") and os.geteuid() == 0
            and shutil.which("apt-get") is not None)


def _apt_install(packages: list[str], recommends: bool) -> bool:
    if not packages:
        return True
    command = ["apt-get", "install", "-y", "-qq"] + ([] if recommends else ["--no-install-recommends"]) + packages
    print("+ " + " ".join(command), flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    return subprocess.run(command, env=env, stdout=subprocess.DEVNULL).returncode == 0


def install(requirements: list[Requirement]) -> bool:
    print("+ apt-get update -qq", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    if subprocess.run(["apt-get", "update", "-qq"], env=env).returncode != 0:
        return False
    packages = sorted({r.package for r in requirements if r.recommends})
    lean = sorted({r.package for r in requirements if not r.recommends} - set(packages))
    return _apt_install(packages, True) and _apt_install(lean, False)


def report(requirements: list[Requirement], purpose: str) -> None:
    consequence = ("the tests that need them are skipped, each with its reason" if purpose != "run"
                   else "GIF / PNG captions draw a box for the characters they lack; the Data page names them")
    print(f"Missing system packages ({consequence}):", file=sys.stderr)
    for requirement in requirements:
        print(f"  - {requirement.package}: {requirement.what}", file=sys.stderr)
    packages = " ".join(dict.fromkeys(r.package for r in requirements))
    if shutil.which("apt-get"):
        print(f"Install them with:\n  sudo apt-get install {packages}\n"
              "(as root, `make test` and `make run` do it themselves).", file=sys.stderr)
    else:
        print(f"This is not Debian or Ubuntu: install the equivalents of the Debian packages {packages} "
              "with your system's package manager.", file=sys.stderr)


def main(argv: list[str]) -> int:
    purpose = argv[0] if argv else "test"
    if purpose not in ("run", "test", "check"):
        print(f"usage: {Path(__file__).name} run|test|check", file=sys.stderr)
        return 2
    wanted = missing("test" if purpose == "check" else purpose)
    if wanted and purpose != "check" and _can_install():
        if not install(wanted):
            print("apt-get failed; going on without the packages below.", file=sys.stderr)
        wanted = missing(purpose)
    if wanted:
        report(wanted, purpose)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
