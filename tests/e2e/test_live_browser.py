"""Two people play each other live on the Play page (issue 50), in Chromium, on ONE app server with sign-in (a real
OpenID Connect provider on localhost, as test_sign_in.py): alice creates a game of each corpus, bob opens the
invitation, they play a short game with the mouse and keyboard (messages with markup shown as text, moves drawn at
once and seen by the partner, a peek, locks and a rank, a reload that resumes), finish it, and the download is read
back with the corpus's own reader: the same messages, moves, peeks, locks and ranks in order, and scores equal to an
independent recomputation from the exported file. A third person is told the game is full, a viewer that they
cannot play, and a visitor who did not sign in reaches no page. Each person signs in once for the module."""
from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path

import pytest

from .conftest import wait_for_app
from .test_sign_in import Provider, needs_provider, sign_in, signed_in_app

pytestmark = pytest.mark.e2e

PEOPLE = [{"sub": f"{name}-sub", "email": f"{name}@lab.example", "email_verified": True, "name": name.title()}
          for name in ("alice", "bob", "carol", "vera")]
ROLES = "default = \"viewer\"\n" + "".join(
    f"\n[[person]]\nemail = \"{name}@lab.example\"\nrole = \"coder\"\ncoder = \"{name}\"\n"
    for name in ("alice", "bob", "carol"))


@pytest.fixture(scope="module")
def live_app(tmp_path_factory):
    needs_provider()
    provider = Provider(tmp_path_factory.mktemp("oidc-live"), PEOPLE, ready=False)
    server = signed_in_app(tmp_path_factory.mktemp("live-app"), provider, ROLES)
    yield server
    server.stop()
    provider.stop()


@pytest.fixture(scope="module")
def people(browser, live_app):
    """One signed-in browser profile (and tab) per person, for the whole module."""
    tabs = {}
    contexts = []
    for name in ("alice", "bob", "carol", "vera"):
        context = browser.new_context(viewport={"width": 1400, "height": 1000}, reduced_motion="reduce")
        contexts.append(context)
        tab = context.new_page()
        tab.set_default_timeout(30_000)
        sign_in(tab, live_app.url, f"{name}-sub")
        tabs[name] = tab
    yield tabs
    for context in contexts:
        context.close()


def _agree_if_asked(tab) -> None:
    """The consent text, agreed to the first time a person creates or joins a game (ui/play/consent.py)."""
    wait_for_app(tab)
    if tab.get_by_role("button", name="I agree").count():
        tab.get_by_role("button", name="I agree").click()
        wait_for_app(tab)


def _create(tab, url: str, corpus: str, role: str) -> str:
    """alice's game of ``corpus`` in ``role``: created on the Play page; its invitation link."""
    tab.goto(f"{url}/play?corpus={corpus}")
    _agree_if_asked(tab)
    choice = tab.locator("[data-testid=stRadio]").get_by_role("radio", name=role, exact=True)
    if not choice.is_checked():  # a click on the chosen one runs nothing
        tab.locator("[data-testid=stRadio]").get_by_text(role, exact=True).click()
        wait_for_app(tab)
    tab.get_by_role("button", name="Create the game").click()
    tab.locator("[data-live-game]").wait_for()
    assert tab.get_attribute("[data-live-game]", "data-live-role") == role
    return tab.locator("[data-testid=stCode] code").last.inner_text().strip()


def _open(tab, link: str) -> None:
    tab.goto(link)
    _agree_if_asked(tab)
    tab.locator("[data-live-game]").wait_for()


def _settled(tab, cursor: int) -> None:
    """Until the tab has seen the game up to event ``cursor`` and has nothing left to send."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        tab.wait_for_function(
            "c => { const r = document.querySelector('[data-live-game]');"
            " return r && Number(r.dataset.liveCursor) >= c && (r.dataset.livePending || '0') === '0'; }", arg=cursor)
    except PlaywrightTimeout:
        state = tab.evaluate("() => { const r = document.querySelector('[data-live-game]'); return r && "
                             "[r.dataset.liveCursor, r.dataset.livePending, r.querySelector('.lv-note').textContent]; }")
        raise AssertionError(f"the game did not reach event {cursor}: (cursor, pending, note) = {state}") from None


def _say(tab, text: str) -> None:
    tab.locator("[data-live-input]").fill(text)
    tab.locator("[data-live-input]").press("Enter")


def _messages(tab) -> list[tuple[str, str]]:
    rows = tab.locator("[data-live-message]")
    return [(row.get_attribute("data-live-role"), row.inner_text().split(": ", 1)[1]) for row in rows.all()]


def _finish_and_download(finisher, other, folder: Path) -> Path:
    finisher.locator("[data-live-finish]").click()
    finisher.locator("[data-live-finish]").click()  # the second click ends it: the game is both players'
    other.locator("[data-live-game][data-live-status=finished]").wait_for()
    button = finisher.get_by_role("button", name="Download the game (the corpus's files, zipped)")
    button.wait_for()
    with finisher.expect_download() as download:
        button.click()
    zipfile.ZipFile(io.BytesIO(Path(download.value.path()).read_bytes())).extractall(folder)
    return folder


def _refused_to_others(people, live_app, link: str) -> None:
    carol, vera = people["carol"], people["vera"]
    carol.goto(link)
    _agree_if_asked(carol)
    carol.get_by_text("This game is full", exact=False).wait_for()
    vera.goto(link)
    vera.get_by_text("You cannot play", exact=False).wait_for()
    for tab in (carol, vera):
        assert tab.locator("[data-live-game]").count() == 0 and tab.locator("[data-live-message]").count() == 0
    # nor through the routes, with their own sign-in: no read, no write (the store knows them for who they are)
    game_id = people["alice"].get_attribute("[data-live-game]", "data-live-game")
    for tab in (carol, vera):
        read = tab.request.get(f"{live_app.url}/_live/{game_id}/events?after=0")
        wrote = tab.request.post(f"{live_app.url}/_live/{game_id}/events", headers={"x-live-game": "1"},
                                 data={"client_id": "x-1", "kind": "message", "payload": {"text": "hi"}})
        ended = tab.request.post(f"{live_app.url}/_live/{game_id}/finish", headers={"x-live-game": "1"}, data={})
        assert (read.status, wrote.status, ended.status) == (404, 404, 404)  # as if there were no such game


def test_minecraft_architect_and_builder_play_resume_and_the_export_reads_back(people, live_app, browser, tmp_path):
    from corpora.minecraft.data import frames

    alice, bob = people["alice"], people["bob"]
    link = _create(alice, live_app.url, "minecraft", "Architect")
    _open(bob, link)
    alice.locator("[data-live-game][data-live-status=playing]").wait_for()
    assert bob.get_attribute("[data-live-game]", "data-live-role") == "Builder"
    _refused_to_others(people, live_app, link)
    stranger = browser.new_context()
    try:  # a visitor who never signed in reaches no page (and the routes answer them nothing)
        page = stranger.new_page()
        page.goto(link)
        page.get_by_role("button", name="Sign in").wait_for()
        game_id = alice.get_attribute("[data-live-game]", "data-live-game")
        answer = page.request.get(f"{live_app.url}/_live/{game_id}/events")
        assert answer.status == 404 and "events" not in answer.json()
    finally:
        stranger.close()

    _say(alice, "<b>two</b> blocks, blue then red")
    bob.locator("[data-live-message]").first.wait_for()
    assert bob.locator("[data-live-message] b").count() == 1  # the role's label only: the markup is text
    command = bob.locator("[data-play-command]")
    for typed in ("place blue 0 1 0", "place red 1 1 0"):
        command.fill(typed)
        command.press("Enter")
    bob.get_by_role("button", name="Undo").click()  # takes the red block back: sent as a removal
    _settled(bob, 4)
    _say(bob, "done?")
    _settled(alice, 5)
    bob.reload()  # a reload resumes the game as the store has it
    _settled(bob, 5)
    assert _messages(bob) == [("Architect", "<b>two</b> blocks, blue then red"), ("Builder", "done?")]
    assert _messages(alice) == _messages(bob)  # nothing from carol or vera
    folder = _finish_and_download(alice, bob, tmp_path / "minecraft")

    built, skipped = frames.build_frames(folder)
    assert skipped == []
    assert list(zip(built["utterances"]["role"], built["utterances"]["text"])) == [
        ("Architect", "<b>two</b> blocks, blue then red"), ("Builder", "done?")]
    actions = built["actions"]
    assert list(zip(actions["kind"], actions["x"], actions["y"], actions["color"])) == [
        ("placement", 0, 1, "blue"), ("placement", 1, 1, "red"), ("removal", 1, 1, "red")]
    # independently: the last world state written holds exactly the block the actions leave
    observations = json.loads(next(folder.rglob("postprocessed-observations.json")).read_text())
    last = observations["WorldStates"][-1]["BlocksInGrid"]
    assert [(b["AbsoluteCoordinates"], b["Type"]) for b in last] == [
        ({"X": 0, "Y": 1, "Z": 0}, "cwc_minecraft_blue_rn")]


def test_codraw_teller_and_drawer_play_two_rounds_with_a_peek_and_the_scores_recompute(people, live_app, tmp_path):
    from corpora.codraw.data import frames
    from corpora.codraw.data.metrics import original_score
    from corpora.codraw.data.scenes import parse_scene

    from .playing import drag_from_palette

    alice, bob = people["alice"], people["bob"]
    link = _create(alice, live_app.url, "codraw", "Teller")
    _open(bob, link)
    alice.locator("[data-live-game][data-live-status=playing]").wait_for()
    _say(alice, "a <i>sun</i> top right")
    bob.locator("[data-live-message]").first.wait_for()
    piece = bob.locator(".cd-palette [data-clipart]").first.get_attribute("data-clipart")
    drag_from_palette(bob, piece, 420, 60)
    _settled(bob, 2)  # the canvas, drawn at once, sent a moment later
    _say(bob, "ok")
    _settled(alice, 3)
    assert alice.locator(".lv-codraw-peek .cd-item").count() == 0
    alice.locator("[data-live-peek]").click()
    alice.locator(".lv-codraw-peek .cd-item").first.wait_for()  # the Drawer's canvas, once
    assert alice.locator("[data-live-input]").is_disabled()  # no messages while the peek is open
    alice.locator("[data-live-unpeek]").click()
    alice.wait_for_function("() => !document.querySelector('[data-live-input]').disabled")
    _say(alice, "now nothing else")
    _settled(bob, 6)  # the Drawer sees no peek: its cursor counts its own events and the messages
    _say(bob, "done")
    _settled(alice, 7)
    assert alice.locator("[data-live-peek]").is_disabled()  # once a game
    folder = _finish_and_download(bob, alice, tmp_path / "codraw")

    built, skipped = frames.build_frames(folder / "CoDraw_1_0.json")
    assert skipped == []
    rounds = built["rounds"]
    assert rounds["msg_t"].tolist() == ["a <i>sun</i> top right", "now nothing else"]
    assert rounds["msg_d"].tolist() == ["ok", "done"] and rounds["peeked"].tolist() == [False, True]
    document = json.loads((folder / "CoDraw_1_0.json").read_text())
    (dialog,) = document["data"].values()
    for stored in dialog["dialog"]:  # each round's stored score, recomputed by the original metric
        drawn = [c for c in parse_scene(stored["abs_d"]) if c.x > -1000]
        assert len(drawn) == 1 and drawn[0].name == piece
        assert stored["score"][0] == pytest.approx(original_score(drawn, parse_scene(stored["abs_t"])).score)


def test_gos_players_mark_lock_and_rank_and_the_export_reads_back(people, live_app, tmp_path):
    from corpora.gos.data import frames

    alice, bob = people["alice"], people["bob"]
    link = _create(alice, live_app.url, "gos", "Player A")
    _open(bob, link)
    alice.locator("[data-live-game][data-live-status=playing]").wait_for()
    alice.locator(".gs-board [data-image-id]").first.wait_for()
    images = [node.get_attribute("data-image-id") for node in alice.locator(".gs-board [data-image-id]").all()]
    _say(alice, "hello <b>there</b>")
    assert "Mark the images" in alice.locator(".lv-note").inner_text()  # not sent before marking
    alice.locator('[data-live-mark=""]').click()  # "no image"
    _say(alice, "hello <b>there</b>")
    bob.locator(f'[data-live-mark="{images[0]}"]').click()
    _say(bob, "the first one?")
    _settled(alice, 2)

    def lock(tab, image):
        tab.locator(f'.gs-board [data-image-id="{image}"]').click()
        tab.locator("[data-live-lock]").click()

    lock(alice, images[0])
    lock(bob, images[0])  # the same image: ranked 1, both see it
    for tab in (alice, bob):
        tab.locator(f'.gs-board [data-image-id="{images[0]}"] .gs-badge', has_text="1").wait_for()
    lock(alice, images[1])
    _settled(alice, 6)
    lock(bob, images[2])  # another image: both locks released
    alice.get_by_text("both locks were released", exact=False).wait_for()
    _settled(bob, 8)
    folder = _finish_and_download(alice, bob, tmp_path / "gos")

    built, skipped = frames.build_frames(folder)
    assert skipped == []
    messages = built["messages"]
    assert messages["text"].tolist() == ["hello <b>there</b>", "the first one?"]
    assert [list(ids) for ids in messages["image_ids"]] == [[], [images[0]]]
    ranks = built["ranks"]
    assert ranks[ranks["round"] == 1].sort_values("rank")["image_id"].tolist() == [images[0]]
    assert built["lock_events"]["lock_event_type"].tolist() == [
        "lock", "lock", "lock", "lock", "unlock automatic", "unlock automatic"]
    assert re.fullmatch(r"player-a-\d+", messages["username"].iloc[0])  # never the sign-in
