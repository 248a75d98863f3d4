"""The exported HTML replay opened from file:// in Chromium: it steps with the keys, shows each step's
picture and transcript, runs nothing from the data and makes no request."""
from __future__ import annotations

import json

import pytest

from data_access import snapshots
from data_access.corpora import demo_path, load_configured, load_path
from data_access.exports.html import compare_replay_html, dialog_replay_html

pytestmark = pytest.mark.e2e

HOSTILE = '<img src=x onerror="window.__xss=1"> <script>window.__xss=2</script> & \\input{/etc/passwd}'


def _open(page, path):
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(path.as_uri())
    page.wait_for_selector("#step-label")
    return requests


def _state(page):
    return page.evaluate("""() => ({
        label: document.getElementById('step-label').textContent,
        src: Array.from(document.querySelectorAll('img.frame')).filter(i => !i.hidden).map(i => i.src),
        shown: Array.from(document.querySelectorAll('.line')).filter(l => !l.hidden).map(l => l.textContent),
        now: Array.from(document.querySelectorAll('.line.now')).map(l => l.textContent),
    })""")


def _outgoing(requests):
    assert any(url.startswith("file:") for url in requests)  # the listener does see the page's own load
    return [url for url in requests if not url.startswith(("data:", "file:"))]


def test_codraw_export_steps_with_keys_and_stays_offline(page, tmp_path):
    corpus = json.loads(demo_path("codraw", tmp_path / "demo").read_text(encoding="utf-8"))
    dialog = sorted(corpus["data"])[0]
    corpus["data"][dialog]["dialog"][0]["msg_t"] = HOSTILE
    hostile = tmp_path / "CoDraw_hostile.json"
    hostile.write_text(json.dumps(corpus), encoding="utf-8")
    loaded = load_path("codraw", hostile, tmp_path / "cache")
    n_steps = snapshots.step_count(loaded, dialog)
    assert n_steps >= 3
    exported = tmp_path / "replay.html"
    exported.write_text(dialog_replay_html(loaded, dialog), encoding="utf-8")

    requests = _open(page, exported)
    first = _state(page)
    assert first["label"] == f"1 / {n_steps}"
    assert len(first["src"]) == 1 and first["src"][0].startswith("data:image/webp;base64,")
    assert any(HOSTILE in line for line in first["now"])  # shown literally, as text
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    third = _state(page)
    assert third["label"] == f"3 / {n_steps}"
    assert third["src"] != first["src"]  # the Drawer's canvas changed
    assert len(third["shown"]) > len(first["shown"])
    said = snapshots.step_messages(loaded, dialog, 3)
    assert any(str(said["text"].iloc[0]) in line for line in third["now"])
    page.keyboard.press("ArrowLeft")
    assert _state(page)["label"] == f"2 / {n_steps}"
    page.click("#next")
    assert _state(page)["label"] == f"3 / {n_steps}"
    page.keyboard.press("End")
    assert _state(page)["label"] == f"{n_steps} / {n_steps}"
    assert page.is_disabled("#next")

    assert page.evaluate("() => window.__xss") is None
    assert page.locator('img[src="x"]').count() == 0
    assert _outgoing(requests) == []


def test_compare_export_steps_both_dialogs_together(page, tmp_path):
    loaded = load_configured("minecraft")
    dialogs = loaded.dialogs.sort_values("n_steps")["dialog_id"].tolist()[:2]
    counts = [snapshots.step_count(loaded, d) for d in dialogs]
    exported = tmp_path / "compare.html"
    exported.write_text(compare_replay_html(loaded, [(d, None) for d in dialogs]), encoding="utf-8")

    requests = _open(page, exported)
    assert page.locator("section.panel").count() == 2
    start = _state(page)
    assert len(start["src"]) == 2
    page.fill("#step", str(max(counts)))  # the slider
    page.dispatch_event("#step", "input")
    end = _state(page)
    assert end["label"] == f"{max(counts)} / {max(counts)}"
    assert end["src"] != start["src"]
    steps = page.eval_on_selector_all(".panel-step", "els => els.map(e => e.textContent)")
    assert steps == [f"utterance {c}" for c in counts]  # the shorter game stays on its last step
    assert _outgoing(requests) == []


def test_the_export_opens_at_the_step_being_viewed(page, tmp_path):
    """Issue 38: the HTML replay opened at step 1 whatever step the reader exported it from."""
    loaded = load_path("codraw", demo_path("codraw", tmp_path / "demo"), tmp_path / "cache")
    dialog = loaded.dialogs.sort_values("n_steps")["dialog_id"].iloc[-1]
    n_steps = snapshots.step_count(loaded, dialog)
    assert n_steps >= 3
    exported = tmp_path / "at-step.html"
    exported.write_text(dialog_replay_html(loaded, dialog, None, 3), encoding="utf-8")
    _open(page, exported)
    assert _state(page)["label"] == f"3 / {n_steps}"
    page.keyboard.press("ArrowLeft")
    assert _state(page)["label"] == f"2 / {n_steps}"
    beyond = tmp_path / "beyond.html"
    beyond.write_text(dialog_replay_html(loaded, dialog, None, n_steps + 5), encoding="utf-8")
    _open(page, beyond)
    assert _state(page)["label"] == f"{n_steps} / {n_steps}"  # clamped to the last step
