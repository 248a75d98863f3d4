"""The system packages a test needs: skipped with the missing package's install command as the reason, or
failed when DIALOGUE_REQUIRE_ALL=1 or DIALOGUE_REQUIRE_<NAME>=1 (``.ci/run``: CI must run every test).

What counts as missing, and the package, is ``scripts/system_packages.py``'s, the same list `make test`
installs from as root or prints without root."""
from __future__ import annotations

import os

import pytest

from scripts.system_packages import BY_NAME, REQUIREMENTS, Requirement


def required(name: str) -> bool:
    """Whether a missing ``name`` must fail its tests instead of skipping them."""
    return os.environ.get("DIALOGUE_REQUIRE_ALL") == "1" or os.environ.get(f"DIALOGUE_REQUIRE_{name.upper()}") == "1"


def require(*names: str) -> None:
    """Skip (or fail, see ``required``) the calling test unless every named requirement is present."""
    _missing([BY_NAME[name] for name in names if not BY_NAME[name].present()])


def _missing(requirements: list[Requirement]) -> None:
    """One skip (or failure) naming every missing requirement and the one command that installs them all."""
    if not requirements:
        return
    if len(requirements) == 1:
        reason = requirements[0].reason()
    else:
        packages = " ".join(dict.fromkeys(r.package for r in requirements))
        reason = (f"{'; '.join(r.what for r in requirements)} are missing: apt-get install {packages} "
                  "(as root, `make test` installs them)")
    forced = [r.name for r in requirements if required(r.name)]
    if forced:
        flag = "ALL" if os.environ.get("DIALOGUE_REQUIRE_ALL") == "1" else forced[0].upper()
        pytest.fail(f"DIALOGUE_REQUIRE_{flag}=1 but {reason}")
    pytest.skip(reason)


def missing_names() -> list[str]:
    return [r.name for r in REQUIREMENTS if not r.present()]


def require_fonts_for(text: str) -> None:
    """Skip (or fail) unless the caption fonts draw every character of ``text``, naming the package to install."""
    from data_access import fonts

    _missing([next(r for r in REQUIREMENTS if r.package == package) for package in fonts.missing_font_packages(text)])
