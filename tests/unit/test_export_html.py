"""The self-contained HTML replay: escaping, the Content-Security-Policy, embedded pictures, panels."""
from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser

import pytest
from PIL import Image

from data_access.corpora import load_configured
from data_access.exports import html as export_html
from data_access.exports.html import Line, Panel, replay_html

HOSTILE = '<script>window.__x=1</script> <img src=x onerror="window.__x=2"> & "quotes" \u2028 \\input{x}'


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts.append(data)


def _parse(document: str) -> _Collect:
    parser = _Collect()
    parser.feed(document)
    return parser


def _pictures(*colours):
    return [Image.new("RGB", (40, 30), colour) for colour in colours]


def test_text_from_the_data_is_escaped_and_only_our_script_runs():
    panel = Panel(HOSTILE, _pictures("red", "blue"), [Line(1, HOSTILE, HOSTILE), Line(2, "B", "ok")], subtitle=HOSTILE)
    document = replay_html(HOSTILE, [panel], description=HOSTILE)
    parsed = _parse(document)
    assert [t for t, _ in parsed.tags].count("script") == 1
    assert not any(t == "img" and a.get("src") == "x" for t, a in parsed.tags)
    assert not any(any(k.startswith("on") for k in a) for _, a in parsed.tags)
    assert "&lt;script&gt;window.__x=1&lt;/script&gt;" in document
    # The CSP allows exactly the one inline script, by its hash, and nothing from the network.
    csp = next(a["content"] for t, a in parsed.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    digest = base64.b64encode(hashlib.sha256(parsed.scripts[0].encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in csp
    assert "default-src 'none'" in csp and "img-src data:" in csp
    assert not re.search(r"(src|href)=\"(https?:|//)", document)


def test_every_step_has_a_picture_and_identical_pictures_are_stored_once():
    panel = Panel("p", _pictures("red", "red", "blue", "red"), [Line(3, "A", "third")], unit="round")
    parsed = _parse(replay_html("t", [panel]))
    frames = [a for t, a in parsed.tags if t == "img"]
    assert len(frames) == 2  # red and blue
    assert all(a["src"].startswith("data:image/webp;base64,") for a in frames)
    section = next(a for t, a in parsed.tags if t == "section")
    assert section["data-frames"] == "0,0,1,0" and section["data-steps"] == "4"
    line = next(a for t, a in parsed.tags if t == "div" and "line" in a.get("class", ""))
    assert line["data-step"] == "3"


def test_png_and_jpeg_and_scaling():
    big = Image.new("RGB", (3000, 1000), "green")
    for fmt, mime in (("PNG", "image/png"), ("JPEG", "image/jpeg"), ("WEBP", "image/webp")):
        uri = export_html.encode_picture(big, fmt, max_width=600)
        assert uri.startswith(f"data:{mime};base64,")
        decoded = Image.open(__import__("io").BytesIO(base64.b64decode(uri.split(",", 1)[1])))
        assert decoded.size == (600, 200)


def test_panels_step_together_with_the_longest_setting_the_slider():
    document = replay_html("two", [Panel("a", _pictures("red", "blue")), Panel("b", _pictures("red", "blue", "green"))])
    assert 'id="replay" data-steps="3"' in document and 'max="3"' in document


def test_nothing_to_export_is_an_error():
    with pytest.raises(ValueError):
        replay_html("t", [])
    with pytest.raises(ValueError):
        replay_html("t", [Panel("empty", [])])


@pytest.mark.parametrize("corpus", ["codraw", "gos", "minecraft"])
def test_demo_dialog_exports_with_its_transcript(corpus):
    loaded = load_configured(corpus)
    dialog = loaded.dialogs["dialog_id"].iloc[0]
    round_ = 1 if corpus == "gos" else None
    document = export_html.dialog_replay_html(loaded, dialog, round_)
    parsed = _parse(document)
    steps = int(next(a for t, a in parsed.tags if t == "section")["data-steps"])
    from data_access import snapshots

    assert steps == snapshots.step_count(loaded, dialog, round_)
    said = snapshots.step_messages(loaded, dialog, steps, round_, up_to=True)
    lines = [a for t, a in parsed.tags if t == "div" and "line" in a.get("class", "")]
    assert len(lines) == len(said) > 0
    import html

    assert html.escape(str(said["text"].iloc[0])) in document


@pytest.mark.parametrize("corpus", ["codraw", "gos", "minecraft"])
def test_demo_run_beside_the_humans(corpus, tmp_path):
    from data_access import snapshots
    from data_access.runs import load_run
    from data_access.runs.demo import demo_runs

    loaded = load_configured(corpus)
    name, file = next(iter(demo_runs(corpus, tmp_path).items()))
    run = load_run(loaded, file, cache_root=tmp_path / "cache")
    if corpus == "minecraft":  # a game the run has predictions for
        dialog = str(run.frames["samples"]["game"].iloc[0])
    elif corpus == "gos":
        dialog = str(run.frames["messages"]["interaction_id"].iloc[0])
    else:
        dialog = str(run.frames["rounds"]["dialog_id"].iloc[0])
    round_ = 1 if corpus == "gos" else None
    model = export_html.run_panel(loaded, run, dialog, round_)
    steps = snapshots.step_count(loaded, dialog, round_)
    assert len(model.pictures) == steps
    # Some steps show the model's output, not only notes: more than one distinct picture.
    assert len({p.tobytes() for p in model.pictures}) > 1
    parsed = _parse(export_html.run_replay_html(loaded, run, dialog, round_))
    sections = [a for t, a in parsed.tags if t == "section"]
    assert len(sections) == 2 and all(s["data-steps"] == str(steps) for s in sections)
    assert any(t == "h2" for t, _ in parsed.tags)


def test_a_document_over_its_budget_is_encoded_smaller():
    import random

    rng = random.Random(1)
    noisy = []
    for _ in range(3):  # noise compresses badly: a large document at the default quality
        image = Image.new("RGB", (400, 300))
        image.putdata([(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(400 * 300)])
        noisy.append(image)
    full = replay_html("t", [Panel("p", noisy)])
    smaller = replay_html("t", [Panel("p", noisy)], budget=int(len(full) * 0.8))
    assert len(smaller) <= len(full) * 0.8
    assert smaller.count("<img") == full.count("<img") == 3


def test_the_replay_opens_at_the_step_it_was_exported_from():
    pictures = [Image.new("RGB", (20, 10), colour) for colour in ("red", "green", "blue")]
    panel = Panel("t", pictures, [])
    assert 'data-start="2"' in replay_html("t", [panel], start=2)
    assert 'data-start="3"' in replay_html("t", [panel], start=99)  # clamped to the steps it has
    assert 'data-start="1"' in replay_html("t", [panel])
