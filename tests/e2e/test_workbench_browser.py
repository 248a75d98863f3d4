"""The Replay as a workbench, in Chromium (issue 47): what the person sees and presses, measured in the page.

- With a coder and a codebook set (or ``code=1``), at 1400x900 and 1280x720, on each built-in corpus and on the
  test plugin corpus (``tests/fixtures/tinycorpus``, installed here through its entry points, with no Replay
  section of its own): every label control, the notes field and the step's picture are inside the viewport on
  the first open and after ten steps forward, the pictures at least 240 px wide (a plugin's at its own size,
  never blown up).
- A label key shows the label at once (before any answer from the server), the store has it once the column
  says so, a second press says "already labelled", Shift+key and Ctrl+Z take labels off, and a label the store
  refuses goes back with the reason.
- A Coding-queue session of 20 items done with the keyboard alone, every label and done mark in the store.

One server for the whole file; every wait is on the app's run mark, the player's ``data-step`` or the column's
own answer, never a pause."""
from __future__ import annotations

import uuid

import pytest

from data_access.coding import codebook as cb
from data_access.links import Place
from data_access.store import CodingStore

from .conftest import AppServer, wait_for_app

pytestmark = pytest.mark.e2e

BOOK = cb.Codebook("clarification", (
    cb.Label("CR", scope="turn", colour="#d62728", key="c"),
    cb.Label("not-CR", scope="turn", colour="#2ca02c", key="n"),
    cb.Label("refers-to", scope="span", links_referents=True, colour="#1f77b4", key="r"),
    cb.Label("success", scope="dialog", colour="#9467bd", key="s"),
))
# the longest demo dialog of each corpus (the plugin's: its four-turn dialog), and what opens it
OPENINGS = {"codraw": "corpus=codraw&dialog=train_00091", "gos": "corpus=gos&dialog=65561684f5c5a2a9c95ab455&round=1",
            "minecraft": "corpus=minecraft&dialog=B1-A2-C1-1523304955000", "tiny": "corpus=tiny&dialog=t3"}
VIEWPORTS = [(1400, 900), (1280, 720)]
PLAYER = "[data-step-player]"


@pytest.fixture(scope="module")
def workbench_app(tmp_path_factory):
    """The demo app with the codebook saved and the tiny test corpus installed as a plugin: a distribution whose
    entry points name ``tests.fixtures.tinycorpus`` and its views, found on the server's path."""
    workdir = tmp_path_factory.mktemp("workbench-app")
    CodingStore(workdir / "notes.sqlite3").save_codebook(BOOK)
    plugin = workdir / "plugin"
    info = plugin / "dialogue_tiny_corpus-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: dialogue_tiny_corpus\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[dialogue_dashboard.corpora]\ntiny = tests.fixtures.tinycorpus\n\n"
                                           "[dialogue_dashboard.views]\ntiny = tests.fixtures.tinycorpus.views\n")
    server = AppServer(workdir, {"PYTHONPATH": str(plugin)})
    yield server
    server.stop()


def wait_shown(page, step: int) -> None:
    page.wait_for_function("s => { const r = document.querySelector('[data-step-player]'); return r && r.dataset.step === s; }",
                           arg=str(step), timeout=60_000)


def open_workbench(page, app, opening: str, viewport=(1400, 900), extra: str = "&coder=ann") -> None:
    page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
    page.goto(f"{app.url}/replay?{opening}{extra}")
    page.wait_for_selector(f"{PLAYER}[data-step] .sp-slot img", timeout=60_000)
    page.wait_for_selector("[data-coding-panel] [data-label-key]", timeout=60_000)
    wait_for_app(page)


# Each box the person needs, where the page has it: [what, left, top, right, bottom], and the pictures' sizes
BOXES = """() => {
  const box = (what, node) => { const b = node.getBoundingClientRect(); return [what, b.left, b.top, b.right, b.bottom]; };
  const boxes = [...document.querySelectorAll('[data-coding-panel] [data-label-key]')].map(n => box('label ' + n.dataset.label, n));
  const notes = document.querySelector('[data-notes-field]');
  if (notes) boxes.push(box('notes field', notes));
  const pictures = [...document.querySelectorAll('[data-step-player] .sp-slot img')];
  pictures.slice(0, 1).forEach(img => boxes.push(box('picture', img)));
  return {boxes, pictures: pictures.map(img => [img.getBoundingClientRect().width, img.naturalWidth]),
          viewport: [window.innerWidth, window.innerHeight]};
}"""


def assert_in_view(page, corpus: str, when: str) -> None:
    seen = page.evaluate(BOXES)
    width, height = seen["viewport"]
    names = [box[0] for box in seen["boxes"]]
    assert sum(name.startswith("label") for name in names) == len(BOOK.labels) and "notes field" in names
    assert "picture" in names, f"{corpus} {when}: no picture"
    outside = [box for box in seen["boxes"] if box[1] < 0 or box[2] < 0 or box[3] > width or box[4] > height]
    assert not outside, f"{corpus} at {width}x{height}, {when}: outside the viewport: {outside}"
    for shown, natural in seen["pictures"]:
        assert shown <= natural + 0.5, f"{corpus}: a picture blown up from {natural} px to {shown} px"
        if corpus != "tiny":
            assert shown >= 240, f"{corpus} at {width}x{height}: a picture only {shown:.0f} px wide"


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=lambda v: f"{v[0]}x{v[1]}")
@pytest.mark.parametrize("corpus", sorted(OPENINGS))
def test_the_step_labels_and_notes_are_in_view_on_first_open_and_after_ten_steps(workbench_app, page, corpus, viewport):
    open_workbench(page, workbench_app, OPENINGS[corpus], viewport, "&code=1&coder=ann" if corpus == "tiny" else "&coder=ann")
    assert_in_view(page, corpus, "on first open")
    last = int(page.get_attribute(f"{PLAYER} .sp-timeline", "aria-valuemax"))
    for _ in range(10):
        page.keyboard.press("ArrowRight")
    step = min(1 + 10, last) if corpus != "gos" else 11
    wait_shown(page, step)
    wait_for_app(page)
    assert_in_view(page, corpus, "after ten steps forward")
    # The steps ran the player alone; the page runs once the reader rests (its panels, its link follow the step),
    # and the step stays the one shown: not the step of the page's last run, which the browser's stepper held.
    page.wait_for_function(LINK_AT, arg=str(step), timeout=30_000)
    wait_for_app(page)
    assert page.get_attribute(PLAYER, "data-step") == str(step) and f"turn={step}" in page.url


LINK_AT = """s => [...document.querySelectorAll('a')].some(a => a.textContent.includes('Link to exactly this state')
  && new URL(a.href, location.href).searchParams.get('turn') === s)"""


def test_the_plugin_corpus_gets_the_step_player_with_its_timeline_play_and_keys(workbench_app, page):
    open_workbench(page, workbench_app, OPENINGS["tiny"], extra="&turn=1&coder=ann")
    player = page.locator(PLAYER)
    assert player.locator(".sp-tick").count() == 4 and player.locator(".sp-play").is_visible()
    assert "the words of each turn" in player.locator(".sp-legend").inner_text()
    assert player.locator("figcaption").first.inner_text().startswith("Tiny replay, the plugin's own picture: Bob says")
    page.keyboard.press("End")
    wait_shown(page, 4)
    page.keyboard.press("Home")
    wait_shown(page, 1)
    player.locator(".sp-play").click()  # plays by itself, one step a second
    wait_shown(page, 2)


def _column_says(page, text: str) -> None:
    page.wait_for_function("t => (document.querySelector('[data-coding-panel] .dc-status') || {}).textContent.includes(t)",
                           arg=text, timeout=30_000)


def _label_set(page, key: str):
    return page.evaluate("k => document.querySelector(`[data-coding-panel] [data-label-key='${k}']`).dataset.labelSet || null", key)


def test_a_label_shows_at_once_is_stored_once_and_comes_off_only_when_asked(workbench_app, page):
    store = CodingStore(workbench_app.notes_db)
    open_workbench(page, workbench_app, "corpus=codraw&dialog=train_00091&turn=2", extra="&coder=lena")
    page.keyboard.press("c")
    assert _label_set(page, "c") == "1"  # in the key's own task: no answer from the server yet
    _column_says(page, "Saved CR")
    mine = store.annotations(coder="lena")
    assert mine[["label", "turn", "dialog_id"]].values.tolist() == [["CR", 2, "train_00091"]]

    page.keyboard.press("c")  # again: nothing removed, nothing doubled
    _column_says(page, "already labelled")
    assert _label_set(page, "c") == "1"

    # → and n in one task, before the next step's pictures can have come: n labels the step the person is on now
    assert page.evaluate(STEP_THEN_LABEL) == ["3", None, "1"]  # the next step's labels, at once
    _column_says(page, "Saved not-CR")
    assert store.annotations(coder="lena")[["label", "turn"]].values.tolist() == [["CR", 2], ["not-CR", 3]]
    wait_shown(page, 3)
    page.keyboard.press("Control+z")  # undo the last label
    assert _label_set(page, "n") is None
    _column_says(page, "Removed")
    page.keyboard.press("ArrowLeft")
    wait_shown(page, 2)
    assert _label_set(page, "c") == "1"
    page.keyboard.press("Shift+C")  # taking a label off is its own key
    assert _label_set(page, "c") is None
    _column_says(page, "Removed")
    assert store.annotations(coder="lena").empty
    history = store.annotations(coder="lena", include_deleted=True)
    assert sorted(history["label"]) == ["CR", "not-CR"]  # each stored once, each taken off once

    # A label keyed in the moment of the player's report goes in the player's run (Streamlit sends the changes of
    # one moment as one run of the fragment that changed first): stored, but the column is not drawn. Its batch
    # is sent again when that run is over, not after the column's fallback delay (set out of reach here). First
    # the page's run after the last step (the player's settle), which would draw the column too.
    page.wait_for_function(SETTLED, timeout=30_000)
    wait_for_app(page)
    assert page.evaluate(LABEL_IN_THE_PLAYERS_RUN) == "1"
    _column_says(page, "Saved success")
    trace = [entry[1] for entry in page.evaluate("() => document.querySelector('[data-coding-panel]').__trace")]
    assert "unanswered" in trace and trace.index("send") < trace.index("unanswered") < trace.index("answer"), trace
    assert store.annotations(coder="lena")["label"].tolist() == ["success"]
    page.wait_for_selector("[data-coding-panel][data-pending='0']", timeout=30_000)


def _keys(*keys: tuple[str, str]) -> str:
    """Script dispatching a keydown of each (key, code) on the document, one after another in one task."""
    return "".join(f"document.dispatchEvent(new KeyboardEvent('keydown', {{key: '{key}', code: '{code}', "
                   "bubbles: true, cancelable: true}));" for key, code in keys)


STEP_THEN_LABEL = "() => {" + _keys(("ArrowRight", "ArrowRight"), ("n", "KeyN")) + """
  const panel = document.querySelector('[data-coding-panel]');
  const set = k => panel.querySelector(`[data-label-key='${k}']`).dataset.labelSet || null;
  return [panel.dataset.step, set('c'), set('n')];
}"""
SETTLED = """() => { const seen = document.querySelector('[data-step-player]').__trace.map(entry => entry[1]);
  return seen.lastIndexOf('settle') > seen.lastIndexOf('report'); }"""
LABEL_IN_THE_PLAYERS_RUN = """() => {
  Object.values(window.__codingColumns).forEach(column => { column.retryMs = 600000; column.root.__trace = []; });
  const player = document.querySelector('[data-step-player]').parentElement.__stepPlayer;
  player.trigger('step', player.current);  // the player's report, first in the moment
""" + _keys(("s", "KeyS")) + """
  return document.querySelector("[data-coding-panel] [data-label-key='s']").dataset.labelSet || null;
}"""


def test_a_label_the_store_refuses_goes_back_with_the_reason(workbench_app, page):
    open_workbench(page, workbench_app, "corpus=codraw&dialog=train_00091&turn=1", extra="&coder=gold")
    page.keyboard.press("c")
    assert _label_set(page, "c") == "1"
    _column_says(page, "gold layer")  # the store keeps the coder name "gold" for adjudication
    assert _label_set(page, "c") is None
    assert CodingStore(workbench_app.notes_db).annotations(coder="gold").empty


def test_a_coding_queue_of_twenty_items_is_done_with_the_keyboard_alone(workbench_app, page):
    from data_access.corpora import demo_path, load_path

    loaded = load_path("codraw", demo_path("codraw"))
    dialogs = loaded.dialogs.sort_values("dialog_id")
    items = [Place("codraw", d, None, 1 + i % 3) for i, d in enumerate(dialogs["dialog_id"].iloc[:20])]
    store = CodingStore(workbench_app.notes_db)
    # a queue and a coder of this attempt's own: a rerun (tests/e2e/conftest.py) starts from an untouched queue
    queue, coder = f"keyboard{uuid.uuid4().hex[:8]}", f"kim{uuid.uuid4().hex[:8]}"
    store.create_queue(queue, items, [coder])
    first = store.queue_items(queue, coder=coder)
    page.goto(f"{workbench_app.url}/coding_queue?coder={coder}")  # opens at the coder's queue with items to do
    wait_for_app(page)
    resume = page.get_by_role("link", name="Resume with the next item", exact=False)
    assert "item=1" in resume.get_attribute("href") and f"queue={queue}" in resume.get_attribute("href")
    href = resume.get_attribute("href")
    page.goto(href if href.startswith("http") else f"{workbench_app.url}/{href.lstrip('/')}")  # then keys alone
    for number, item in enumerate(items, start=1):
        page.wait_for_function("k => new URLSearchParams(location.search).get('item') === k", arg=str(number), timeout=60_000)
        page.wait_for_selector(f"[data-coding-panel][data-dialog='{item.dialog_id}'][data-step='{item.step}']", timeout=60_000)
        wait_for_app(page)
        assert page.get_by_text(f"Item {number} of 20").count() == 1
        page.keyboard.press("c" if number % 2 else "n")
        page.keyboard.press("Enter")  # Done, next
    page.get_by_text("20 of 20 done").first.wait_for(timeout=60_000)
    page.wait_for_selector("[data-coding-panel][data-pending='0']", timeout=30_000)  # every write answered
    done = store.queue_items(queue, coder=coder)
    assert (done["status"] == "done").all() and list(done["id"]) == list(first["id"])
    labels = store.annotations(coder=coder)
    assert sorted(zip(labels["dialog_id"], labels["turn"], labels["label"])) == sorted(
        (item.dialog_id, item.step, "CR" if number % 2 else "not-CR") for number, item in enumerate(items, start=1))
