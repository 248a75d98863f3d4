"""`make test` sees to the system packages the tests need (scripts/system_packages.py): installed as root on
Debian, otherwise named with their install command; a test that needs a missing one skips with that reason,
or fails under DIALOGUE_REQUIRE_ALL=1, which is all `.ci/run` adds to `make test`."""
from __future__ import annotations

import dataclasses
import re

import pytest

from data_access import fonts
from scripts import system_packages
from tests import system
from tests.conftest import ROOT


def _absent(monkeypatch, name: str) -> None:
    gone = dataclasses.replace(system_packages.BY_NAME[name], present=lambda: False)
    monkeypatch.setitem(system_packages.BY_NAME, name, gone)
    monkeypatch.setattr(system_packages, "REQUIREMENTS",
                        tuple(gone if r.name == name else r for r in system_packages.REQUIREMENTS))
    monkeypatch.setattr(system, "REQUIREMENTS", system_packages.REQUIREMENTS)


def test_a_missing_package_skips_its_test_naming_the_install_command(monkeypatch):
    monkeypatch.delenv("DIALOGUE_REQUIRE_ALL", raising=False)
    monkeypatch.delenv("DIALOGUE_REQUIRE_NGINX", raising=False)
    _absent(monkeypatch, "nginx")
    with pytest.raises(pytest.skip.Exception, match=r"nginx .* is missing: apt-get install nginx"):
        system.require("nginx")


@pytest.mark.parametrize("flag", ["DIALOGUE_REQUIRE_ALL", "DIALOGUE_REQUIRE_NGINX"])
def test_the_ci_flags_turn_that_skip_into_a_failure(monkeypatch, flag):
    monkeypatch.delenv("DIALOGUE_REQUIRE_ALL", raising=False)  # CI sets it for the whole run
    monkeypatch.setenv(flag, "1")
    _absent(monkeypatch, "nginx")
    with pytest.raises(pytest.fail.Exception, match=f"{flag}=1 but nginx"):
        system.require("nginx")


def test_a_font_test_is_skipped_for_the_package_of_the_characters_it_draws(monkeypatch):
    monkeypatch.delenv("DIALOGUE_REQUIRE_ALL", raising=False)
    monkeypatch.setattr(fonts, "installed_font", lambda family: None)
    fonts._chain.cache_clear()
    try:
        system.require_fonts_for("café — ok")  # the bundled Noto Sans draws these: no skip
        with pytest.raises(pytest.skip.Exception, match="apt-get install fonts-noto-cjk"):
            system.require_fonts_for("中")
        with pytest.raises(pytest.skip.Exception, match="apt-get install fonts-symbola"):
            system.require_fonts_for("😂")
    finally:
        fonts._chain.cache_clear()


def test_without_root_the_script_names_what_is_missing_and_goes_on(monkeypatch, capsys):
    _absent(monkeypatch, "postgres")
    monkeypatch.setattr(system_packages, "_can_install", lambda: False)
    monkeypatch.setattr(system_packages.shutil, "which", lambda program: "/usr/bin/apt-get" if program == "apt-get" else None)
    assert system_packages.main(["test"]) == 0
    err = capsys.readouterr().err
    assert "postgresql: the PostgreSQL server" in err and re.search(r"sudo apt-get install .*\bpostgresql\b", err)


def test_as_root_on_debian_the_script_installs_what_is_missing(monkeypatch):
    _absent(monkeypatch, "nginx")
    _absent(monkeypatch, "lmodern")
    commands = []
    monkeypatch.setattr(system_packages, "_can_install", lambda: True)
    real_run = system_packages.subprocess.run

    def run(command, **kwargs):
        if command[0] != "apt-get":
            return real_run(command, **kwargs)
        commands.append(command)
        return type("Done", (), {"returncode": 0})

    monkeypatch.setattr(system_packages.subprocess, "run", run)
    assert system_packages.main(["test"]) == 0
    installs = [c for c in commands if c[:2] == ["apt-get", "install"]]
    assert ["apt-get", "update", "-qq"] in commands
    assert installs[0][-1] == "nginx" and "--no-install-recommends" not in installs[0]
    assert installs[1][-1] == "lmodern" and "--no-install-recommends" in installs[1]


def test_the_font_packages_are_the_caption_font_slots():
    by_package = {r.package for r in system_packages.REQUIREMENTS if "run" in r.needed_by} - {"fontconfig"}
    assert by_package == {slot.package for slot in fonts.SLOTS}


def test_make_test_sees_to_the_system_packages_first():
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^test: system-packages \$\(STAMP_TEST\)$", makefile, re.M)
    # every check of `make lint` is in `make test` too (mypy beside the tests), and a finding fails it
    recipe = makefile.split("\ntest: ", 1)[1].split("\n\n", 1)[0]
    assert all(check in recipe for check in ("-m ruff check .", "lint-imports", "-m mypy", "exit $$typed"))
    assert re.search(r"^run: \$\(STAMP_RUN\) system-packages-run$", makefile, re.M)
    assert "scripts/system_packages.py test" in makefile and "scripts/system_packages.py run" in makefile


def test_ci_is_the_flags_and_make_test_only():
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    commands = [line for line in lines if line and not line.startswith("#")]
    assert commands == ["set -euo pipefail", 'cd "$(dirname "$0")/.."', "export DIALOGUE_REQUIRE_ALL=1", "make test"]
