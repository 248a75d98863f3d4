"""Playing on the Play page as a person does, for the browser tests (tests/e2e/test_play_browser.py on the demo
corpora, test_play_shared.py on ../shared): mouse and keyboard only, waiting on the page's contract (``data-step``
moves once the next step is drawn, ``data-play-score`` is the score shown) and on the app's run mark, never on
sleeps. The human's own moves are read from the corpus's frames here, not asked of the app, and a play's run file
is scored by the corpus's run scoring independently of the page."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

from .conftest import wait_for_app

PLAY = "[data-play]"


def open_play(page, url: str, corpus: str, dialog: str, name: str = "ann", extra: str = "") -> None:
    """The Play page on ``dialog``, playing as ``name`` (the local user's name, in the URL as a coder's is): started
    when there is no play under way, resumed when there is."""
    page.goto(f"{url}/play?corpus={corpus}&dialog={dialog}&coder={name}{extra}")
    wait_for_app(page)
    start = page.locator(".st-key-play_start button")
    if start.count():
        start.click()
        wait_for_app(page)
    page.locator(PLAY).wait_for()


def runs_asked(page) -> list[str]:
    """From now on (before the page opens its connection), each run the page asks the server for, in order: the id
    of the fragment it runs alone, or "" for a run of the whole page (Streamlit's ``rerun_script`` message)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    asked: list[str] = []

    def sent(payload) -> None:
        if isinstance(payload, (bytes, bytearray)):
            message = BackMsg()
            message.ParseFromString(bytes(payload))
            if message.WhichOneof("type") == "rerun_script":
                asked.append(message.rerun_script.fragment_id)

    page.on("websocket", lambda socket: socket.on("framesent", sent))
    return asked


def step_of(page) -> int:
    return int(page.locator(PLAY).get_attribute("data-step"))


def wait_step(page, step: int) -> None:
    page.wait_for_selector(f'{PLAY}[data-step="{step}"]', timeout=60_000)


def score_of(page) -> Optional[float]:
    value = page.locator("[data-play-score]").get_attribute("data-play-score")
    return float(value) if value else None


def done(page, settle: bool = True) -> None:
    """Press the step's Done and wait until the next step is drawn (its score with it), and (``settle``) until the
    page's run is over: what the page shows beside the game is then the new step's too."""
    step = step_of(page)
    page.locator("[data-play-done]").click()
    wait_step(page, step + 1)
    if settle:
        wait_for_app(page)


def exported(page, folder: Path) -> Path:
    """The play's run file, downloaded as a person downloads it."""
    with page.expect_download() as download:
        page.locator("[data-play-export]").click()
    path = folder / download.value.suggested_filename
    download.value.save_as(path)
    return path


def independent_score(loaded, run_file: Path, dialog_id: str, cache: Path) -> float:
    """The dialog's score in the run file, as the Runs page reads and scores any run (the corpus's RunScoring)."""
    from data_access.contract import scoring_of
    from data_access.runs import load_run

    run = load_run(loaded, run_file, cache_root=cache)
    assert len(run.skipped) == 0 and len(run.unmatched) == 0, (run.skipped, run.unmatched)
    scores = scoring_of(loaded).dialog_scores(run)
    return float(scores.loc[scores["dialog_id"] == dialog_id, "score"].iloc[0])


# ------------------------------------------------------------------------------------------------- Minecraft

def minecraft_human_actions(loaded, game: str) -> list[list[str]]:
    """Per BAP sample of ``game``, the human Builder's actions as typed commands, each logged step's removals first
    (the order in which they can be made one after the other)."""
    samples = loaded.frames["bap_samples"]
    samples = samples[samples["game"] == game].sort_values("sample_id")
    steps = []
    for text in samples["next_actions"]:
        actions = json.loads(text)
        ordered = sorted(actions, key=lambda a: (a[5], a[0] != "pickup"))
        steps.append([f"place {a[4]} {a[1]} {a[2]} {a[3]}" if a[0] == "putdown" else f"remove {a[1]} {a[2]} {a[3]}"
                      for a in ordered])
    return steps


def type_commands(page, commands: list[str]) -> None:
    field = page.locator("[data-play-command]")
    for command in commands:
        field.fill(command)
        field.press("Enter")
        assert page.locator(".mc-feedback").inner_text().startswith(command), page.locator(".mc-feedback").inner_text()


def place_and_remove_with_the_mouse(page) -> None:
    """Click a block onto the cell under the pointer, then take it away with a right-click: the cell the readout
    names is built on, and removed again (no net change, so the step's score is the human's)."""
    canvas = page.locator("[data-play-canvas]")
    box = canvas.bounding_box()
    readout = page.locator(".mc-readout")
    for dx, dy in ((0, 80), (60, 100), (-60, 110), (0, 140)):
        x, y = box["x"] + box["width"] / 2 + dx, box["y"] + box["height"] / 2 + dy
        page.mouse.move(x, y)
        target = readout.get_attribute("data-place")
        if target:
            break
    assert target, "no cell to build on under the pointer"
    before = page.locator(".mc-actions li").count()
    page.mouse.click(x, y)
    items = page.locator(".mc-actions li")
    assert items.count() == before + 1 and items.nth(before).inner_text().endswith(target)
    assert readout.get_attribute("data-remove") == target  # the new block is what the pointer is on now
    page.mouse.click(x, y, button="right")
    assert items.count() == before + 2 and items.nth(before + 1).inner_text() == f"remove {target}"


def canvas_picture(page) -> str:
    """What the game's canvas shows, as a PNG data URL (the pixels, as a screenshot of it would give them)."""
    return page.locator("[data-play-canvas]").evaluate("canvas => canvas.toDataURL()")


def blocks_drawn_in_order(page) -> None:
    """Two blocks typed on the top layer, the second behind the first (a face painted out of order would cover the
    first's): the grid drawn then, each block's faces merged into the order the game keeps for the camera, is the
    grid drawn after the grid is turned away with the mouse and back (every face sorted anew); turned away, the
    picture is another. The two blocks are then removed (no net change). The pointer is off the grid for each
    picture (no outline)."""
    canvas = page.locator("[data-play-canvas]")
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    off = (box["x"] + box["width"] + 20, box["y"] + 50)  # beside the grid: no cell outlined
    page.mouse.move(*off)
    before = canvas_picture(page)
    type_commands(page, ["place red 0 9 0", "place blue -1 9 -1"])
    merged = canvas_picture(page)
    x, y = box["x"] + 60, box["y"] + 60
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 80, y + 10, steps=4)
    turned = canvas_picture(page)
    page.mouse.move(x, y, steps=4)  # back where the turn began: the camera as it was
    page.mouse.up()
    page.mouse.move(*off)
    assert merged != before and turned != merged
    assert canvas_picture(page) == merged
    type_commands(page, ["remove 0 9 0", "remove -1 9 -1"])
    assert canvas_picture(page) == before


def figure(page, name: str) -> tuple[Optional[float], Optional[float]]:
    """(yours, the human's) of the step's figure ``name``, unrounded, as the page's figures table carries them."""
    row = page.locator(f'.pl-figures tr[data-figure="{name}"]')
    values = [row.get_attribute("data-yours"), row.get_attribute("data-human")]
    return tuple(float(v) if v else None for v in values)  # type: ignore[return-value]


# ---------------------------------------------------------------------------------------------------- CoDraw

def codraw_human_canvases(loaded, dialog_id: str) -> list[tuple[list[dict], str]]:
    """Per round of the dialog, the human Drawer's canvas after it (each clip art once, its last copy, as the metric
    reads a scene) and their reply. Positions are whole pixels, truncated as the game's own ``parseInt`` did: the
    original metric the game stored reads them so."""
    import math

    import pandas as pd

    from corpora.codraw.data.scenes import png_name

    rounds = loaded.frames["rounds"]
    rounds = rounds[rounds["dialog_id"] == dialog_id].sort_values("round")
    cliparts = loaded.frames["cliparts"]
    canvases = []
    for scene, reply in zip(rounds["after_scene"], rounds["msg_d"]):
        rows = cliparts.iloc[:0] if pd.isna(scene) else cliparts[cliparts["scene_id"] == int(scene)]
        by_identity: dict[int, dict] = {}
        for identity, type_id, object_id, x, y, z, flip in zip(rows["identity"], rows["type"], rows["object"], rows["x"],
                                                                rows["y"], rows["z"], rows["flip"]):
            by_identity.pop(int(identity), None)
            by_identity[int(identity)] = {"png": png_name(int(type_id), int(object_id)), "identity": int(identity),
                                          "type": int(type_id), "object": int(object_id), "x": math.trunc(float(x)),
                                          "y": math.trunc(float(y)), "z": int(z), "flip": int(flip)}
        canvases.append((list(by_identity.values()), str(reply or "")))
    return canvases


def _canvas_items(page) -> dict[int, dict]:
    items = {}
    for node in page.locator("[data-play-canvas] .cd-item").all():
        items[int(node.get_attribute("data-identity"))] = {
            "png": node.get_attribute("data-clipart"), "x": int(node.get_attribute("data-x")),
            "y": int(node.get_attribute("data-y")), "z": int(node.get_attribute("data-z")),
            "flip": int(node.get_attribute("data-flip"))}
    return items


def _item(page, identity: int):
    return page.locator(f'[data-play-canvas] .cd-item[data-identity="{identity}"]')


def drag_from_palette(page, png: str, x: int, y: int) -> None:
    """Drag the palette's piece ``png`` onto the canvas with the mouse, dropping it at canvas pixel (x, y) (kept on the
    canvas: the drop must land on it; the arrows take it the rest of the way)."""
    piece = page.locator(f'.cd-palette [data-clipart="{png}"]')
    group = piece.locator("xpath=ancestor::details[1]")
    if group.get_attribute("open") is None:
        group.locator("summary").click()  # Mike's and Jenny's poses are folded away at first
    piece.scroll_into_view_if_needed()
    source = piece.bounding_box()
    page.mouse.move(source["x"] + source["width"] / 2, source["y"] + source["height"] / 2)
    page.mouse.down()
    canvas = page.locator("[data-play-canvas]")
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    target_x, target_y = min(max(x, 2), 498), min(max(y, 2), 398)
    page.mouse.move(box["x"] + target_x + 0.5, box["y"] + target_y + 0.5, steps=6)
    page.mouse.up()


def _settle(page, identity: int, want: dict) -> None:
    """The selected piece moved by the arrows to ``want``'s position, sized and turned as ``want`` says."""
    node = _item(page, identity)
    for axis, (less, more) in (("x", ("ArrowLeft", "ArrowRight")), ("y", ("ArrowUp", "ArrowDown"))):
        gap = want[axis] - int(node.get_attribute(f"data-{axis}"))
        key = more if gap > 0 else less
        for _ in range(abs(gap) // 10):
            page.keyboard.press(f"Shift+{key}")
        for _ in range(abs(gap) % 10):
            page.keyboard.press(key)
        assert int(node.get_attribute(f"data-{axis}")) == want[axis]
    if int(node.get_attribute("data-z")) != want["z"]:
        page.keyboard.press(str(want["z"] + 1))
    if int(node.get_attribute("data-flip")) != want["flip"]:
        page.keyboard.press("f")
    assert (int(node.get_attribute("data-z")), int(node.get_attribute("data-flip"))) == (want["z"], want["flip"])


def draw_canvas(page, wanted: list[dict]) -> None:
    """Make the canvas ``wanted`` as a Drawer would: pieces not wanted removed (Delete), new pieces (and a person in
    another pose or expression) dragged from the palette, every piece moved with the arrow keys to its place, sized
    (1, 2, 3) and flipped (F). A piece already there is selected as Tab selects it (keyboard focus)."""
    want = {item["identity"]: item for item in wanted}
    for identity in _canvas_items(page):
        if identity not in want:
            _item(page, identity).focus()
            page.keyboard.press("Delete")
    for item in wanted:
        current = _canvas_items(page).get(item["identity"])
        if current is None or current["png"] != item["png"]:
            drag_from_palette(page, item["png"], item["x"], item["y"])
            assert _canvas_items(page)[item["identity"]]["png"] == item["png"]
        else:
            _item(page, item["identity"]).focus()
        _settle(page, item["identity"], item)
    assert {i: (v["png"], v["x"], v["y"], v["z"], v["flip"]) for i, v in _canvas_items(page).items()} == {
        i: (v["png"], v["x"], v["y"], v["z"], v["flip"]) for i, v in want.items()}


def drag_on_the_canvas(page, png: str) -> None:
    """Drop a piece on the empty canvas, drag it across the canvas with the mouse, and take it away again."""
    drag_from_palette(page, png, 120, 150)
    node = page.locator(f'[data-play-canvas] .cd-item[data-clipart="{png}"]')
    start = (int(node.get_attribute("data-x")), int(node.get_attribute("data-y")))
    box = page.locator("[data-play-canvas]").bounding_box()
    page.mouse.move(box["x"] + start[0] + 0.5, box["y"] + start[1] + 0.5)
    page.mouse.down()
    page.mouse.move(box["x"] + start[0] + 80.5, box["y"] + start[1] + 40.5, steps=8)
    page.mouse.up()
    assert (int(node.get_attribute("data-x")), int(node.get_attribute("data-y"))) == (start[0] + 80, start[1] + 40)
    page.locator(".cd-tool[data-tool='remove']").click()
    assert node.count() == 0


def codraw_scores(loaded, dialog_id: str, round_number: int, canvas: list[dict]) -> tuple[float, float]:
    """(the paper's metric, the original metric) of ``canvas`` against the dialog's target, with the corpus's readable
    one-pair metric functions (independently of the run scoring the page uses)."""
    from corpora.codraw.data.metrics import final_score, original_score
    from corpora.codraw.data.scenes import Clipart, cliparts_of

    target_scene = loaded.dialogs.set_index("dialog_id").loc[dialog_id, "target_scene"]
    cliparts = loaded.frames["cliparts"]
    target = cliparts_of(cliparts[cliparts["scene_id"] == int(target_scene)])
    drawn = [Clipart(c["identity"], c["png"], c["type"], c["object"], float(c["x"]), float(c["y"]), c["z"], c["flip"])
             for c in canvas]
    return final_score(drawn, target).score, original_score(drawn, target).score


# ------------------------------------------------------------------------------------------- A Game Of Sorts

def gos_pair_ranks(loaded, interaction: str) -> list[list[str]]:
    """Per round of the interaction, the pair's ranked images, rank 1 first."""
    ranks = loaded.frames["ranks"]
    mine = ranks[ranks["interaction_id"] == interaction].sort_values(["round", "rank"])
    return [list(part["image_id"]) for _, part in mine.groupby("round", sort=True)]


def lock(page, image_id: str) -> None:
    """Click the image on the board and LOCK it (the next image can be chosen as soon as the next rank is drawn)."""
    page.locator(f'[data-image-id="{image_id}"]').click()
    done(page, settle=False)
