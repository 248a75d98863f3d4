"""The served app's Streamlit settings that the hardening and speed work relies on (``.streamlit/config.toml``)."""
import tomllib
from pathlib import Path

CONFIG = tomllib.loads((Path(__file__).resolve().parents[2] / ".streamlit" / "config.toml").read_text())


def test_no_traceback_ever_reaches_the_browser():
    assert CONFIG["client"]["showErrorDetails"] == "none"


def test_no_full_garbage_collection_after_every_script_run():
    # Measured: with the corpora loaded, Streamlit's forced gc.collect(2) per rerun was most of a replay
    # step's server CPU (benchmarks/sessions.py, docs/benchmarks.md, "Where a replay step's time goes").
    assert CONFIG["runner"]["postScriptGC"] is False


def test_the_server_does_not_watch_or_rerun_on_file_changes():
    assert CONFIG["server"]["fileWatcherType"] == "none" and CONFIG["server"]["runOnSave"] is False


def test_the_server_never_looks_up_its_external_address():
    # without it, a headless start asks checkip.amazonaws.com for the "External URL" it prints
    assert CONFIG["browser"]["serverAddress"] == "localhost"
