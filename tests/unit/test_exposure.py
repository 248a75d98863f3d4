"""``ui/server/exposure.py``: whether the server listens beyond this machine, what it says about it as it starts, and
the project's default (``.streamlit/config.toml``: localhost)."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from streamlit import config

from ui.server.exposure import is_loopback, served_beyond_localhost, startup_notice

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("address", ["localhost", "LOCALHOST.", "127.0.0.1", "127.1.2.3", "::1", "[::1]"])
def test_loopback_addresses(address):
    assert is_loopback(address)


@pytest.mark.parametrize("address", ["", "0.0.0.0", "::", "192.168.1.20", "dialogue.lab.example", "localhost.evil.example"])
def test_addresses_reachable_from_elsewhere(address):
    assert not is_loopback(address)


def test_the_project_listens_on_localhost_unless_told_otherwise():
    settings = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert is_loopback(settings["server"]["address"])


@pytest.mark.parametrize("address,beyond", [(None, True), ("0.0.0.0", True), ("localhost", False), ("127.0.0.1", False)])
def test_served_beyond_localhost_reads_streamlit_s_address(monkeypatch, address, beyond):
    real = config.get_option
    monkeypatch.setattr(config, "get_option", lambda key: address if key == "server.address" else real(key))
    assert served_beyond_localhost() is beyond


def test_what_the_server_says_as_it_starts():
    text, warning = startup_notice("localhost", sign_in=False)
    assert not warning and "localhost only" in text and "STREAMLIT_SERVER_ADDRESS=0.0.0.0" in text and "sign-in" in text
    text, warning = startup_notice("0.0.0.0", sign_in=False)
    assert warning and text.startswith("WARNING") and "WITHOUT sign-in" in text and "\n" not in text
    text, warning = startup_notice("", sign_in=False)
    assert warning and "every interface" in text
    text, warning = startup_notice("0.0.0.0", sign_in=True)
    assert not warning and "with sign-in" in text
