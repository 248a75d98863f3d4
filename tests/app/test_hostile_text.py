"""Issue 13, items 7 and 8: every string from a file or a URL is shown as text, and no URL value raises.

The three demo corpora are given hostile names the way real data could carry them (Game Of Sorts
usernames, a Minecraft game folder, a CoDraw dialog id) and every page is opened, also through hostile
deep links. No element that Streamlit renders as markdown (markdown, caption, title, subheader, alert
boxes, expander labels, image captions) may carry a link or image from the data unescaped, and no page
may raise."""
from __future__ import annotations

import json
import re
import shutil

import pytest
from streamlit.testing.v1 import AppTest

from data_access.corpora import demo_path
from data_access.links import parse_positive_int
from tests.app.transcript_lines import player_captions
from ui.widgets import md_escape

from . import conftest

LINK = "[x](http://evil)"
IMAGE = "![](http://evil/img.png)"
# Markup that must never reach a markdown element unescaped (escaped, "://" becomes ":\/\/").
HOSTILE = re.compile(r"\[x\]\(|!\[\]\(|://evil|\*\*bold\*\*")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile")
    # Game Of Sorts: the two players of the first interaction are named with markdown.
    gos = base / "gos"
    shutil.copytree(demo_path("gos", base / "demo"), gos)
    log = gos / "a-game-of-sorts_log_interaction_all.jsonl"
    first = json.loads(log.read_text().splitlines()[0])
    players = []
    for line in log.read_text().splitlines():
        record = json.loads(line)
        if record["interaction_id"] == first["interaction_id"] and record["username"] not in players:
            players.append(record["username"])
    for file in gos.glob("*.jsonl"):
        text = file.read_text()
        for old, new in zip(players, (LINK, IMAGE)):
            text = text.replace(json.dumps(old), json.dumps(new))
        file.write_text(text)
    # Minecraft: one game folder (the experiment id, and so its config) carries markdown.
    minecraft = base / "minecraft"
    shutil.copytree(demo_path("minecraft", base / "demo"), minecraft)
    game = sorted(minecraft.glob("logs/*/logs/*"))[0]
    builder, architect, config, millis = re.match(r"(B\d+)-(A\d+)-(C\d+)-(\d+)$", game.name).groups()
    hostile_id = f"{builder}-{architect}-{config}**bold**[x](http:evil)-{millis}"
    game.rename(game.with_name(hostile_id))
    # CoDraw: one dialog id carries a link.
    codraw = base / "CoDraw_1_0.json"
    document = json.loads(demo_path("codraw", base / "demo").read_text())
    key = next(iter(document["data"]))
    document["data"] = {f"{key}{LINK}": document["data"][key], **{k: v for k, v in document["data"].items() if k != key}}
    codraw.write_text(json.dumps(document))
    return {"gos": gos, "minecraft": minecraft, "codraw": codraw, "minecraft_game": hostile_id,
            "codraw_dialog": f"{key}{LINK}", "gos_dialog": first["interaction_id"]}


@pytest.fixture
def hostile_env(hostile, monkeypatch):
    monkeypatch.setenv("CODRAW_DATA", str(hostile["codraw"]))
    monkeypatch.setenv("GAME_OF_SORTS_DATA", str(hostile["gos"]))
    monkeypatch.setenv("MINECRAFT_DATA", str(hostile["minecraft"]))
    return hostile


def shown_markdown(at: AppTest) -> list[str]:
    """The markdown source of every element Streamlit renders as markdown."""
    values = []
    for kind in ("markdown", "caption", "title", "header", "subheader", "warning", "info", "error", "success"):
        values += [str(e.value) for e in getattr(at, kind)]
    values += [e.label for e in at.expander]
    for element in at.get("image"):
        values += [img.caption for img in element.proto.imgs]
    return values


def open_page(page: str, **params) -> AppTest:
    """The shared helper with more time: each test parses its hostile corpora afresh."""
    return conftest.open_page(page, timeout=180, **params)


def assert_inert(at: AppTest) -> list[str]:
    values = shown_markdown(at)
    leaked = [v for v in values if HOSTILE.search(v)]
    assert not leaked, leaked
    return values


def test_md_escape_leaves_no_markup():
    for text in (LINK, IMAGE, "<b>x</b>", ":red[x]", "$x$", "# head\n> quote", "www.evil.com", "`code`", "a_b*c*"):
        escaped = md_escape(text)
        assert "\n" not in escaped
        assert not re.search(r"(?<!\\)[\[\]()!<>*_`$#:.]", escaped), escaped


def test_game_of_sorts_usernames_on_the_replay_are_text(hostile_env):
    at = open_page("pages/replay.py", corpus="gos", dialog=hostile_env["gos_dialog"], round="1", turn="3")
    assert_inert(at)
    # the boards' captions are the step player's data, set in the page with textContent: the names as they are
    captions = player_captions(at)
    assert any(LINK in c for c in captions) and any(IMAGE in c for c in captions)


def test_game_of_sorts_usernames_in_present_and_compare_are_text(hostile_env):
    for page in ("pages/present.py", "pages/compare.py"):  # (their transcripts are escaped HTML, not markdown)
        at = open_page(page, corpus="gos")
        assert_inert(at)


def test_minecraft_folder_name_on_the_replay_is_text(hostile_env):
    at = open_page("pages/replay.py", corpus="minecraft", dialog=hostile_env["minecraft_game"])
    values = assert_inert(at)
    assert any(md_escape("**bold**") in v for v in values)


def test_a_codraw_dialog_id_with_a_link_is_text_everywhere(hostile_env):
    for page, params in (("pages/replay.py", {"corpus": "codraw", "dialog": hostile_env["codraw_dialog"]}),
                         ("pages/browse.py", {"corpus": "codraw"}), ("pages/compare.py", {"corpus": "codraw"}),
                         ("pages/present.py", {"corpus": "codraw"}), ("pages/overview.py", {}),
                         ("pages/data.py", {}), ("pages/notes.py", {})):
        assert_inert(open_page(page, **params))


@pytest.mark.parametrize("params", [
    {"corpus": LINK},
    {"corpus": "codraw", "dialog": LINK},
    {"corpus": "codraw", "turn": IMAGE},
    {"corpus": "gos", "dialog": IMAGE},
    {"corpus": "gos", "round": LINK},
    {"corpus": "minecraft", "dialog": "**bold**" + LINK},
])
def test_url_parameters_echoed_in_warnings_are_text(params):
    at = open_page("pages/replay.py", **params)
    assert at.warning  # the bad value is named ...
    assert_inert(at)  # ... as text


def test_search_and_browse_echo_url_values_as_text():
    assert_inert(open_page("pages/search.py", q=LINK, mode="regex"))
    assert_inert(open_page("pages/search.py", q="(" + LINK, mode="regex"))
    assert_inert(open_page("pages/browse.py", corpus="gos", q=LINK))
    assert_inert(open_page("pages/notes.py", text=LINK, tag=LINK))


# ------------------------------------------------------------------------------------------ item 8

UNICODE_DIGITS = ["²", "٣", "३", "①", "߁", "𝟗", "¹²", "1²", "Ⅻ", "-1", "1e3", "0x10", " 7 ", "9" * 40, "", "  "]


def test_parse_positive_int_takes_ascii_digits_only():
    parsed = {value: parse_positive_int(value) for value in UNICODE_DIGITS}
    assert parsed == {value: 7 if value == " 7 " else None for value in UNICODE_DIGITS}  # 9 × 40: beyond any step
    assert parse_positive_int("12") == 12 and parse_positive_int("0012") == 12


@pytest.mark.parametrize("value", ["²", "٣", "①", "𝟗", "1e3", "9" * 40])
def test_unicode_digits_in_the_url_never_raise(value):
    for corpus in ("codraw", "gos", "minecraft"):
        at = open_page("pages/replay.py", corpus=corpus, turn=value, round=value)
        assert at.warning  # told, and shown step 1
    open_page("pages/browse.py", corpus="gos", min_turns=value, max_turns=value)  # the older links still parse
    open_page("pages/compare.py", corpus="codraw", turn=value)
    open_page("pages/present.py", corpus="gos", turn=value, round=value, speed=value)


def test_a_step_number_too_long_to_read_is_beyond_the_end_like_any_large_one():
    for turn in ("999", "9" * 40):
        at = open_page("pages/replay.py", corpus="codraw", turn=turn)
        [warning] = at.warning
        last = re.search(r"showing the last round, (\d+)\.", warning.value).group(1)
        assert at.query_params["turn"] == last


def test_a_huge_link_value_is_echoed_cut_short():
    at = open_page("pages/replay.py", corpus="codraw", dialog="x" * 100_000)
    [warning] = at.warning
    assert "x" * 80 + "…" in warning.value and len(warning.value) < 1_000


@pytest.mark.parametrize("spelling", ["CoDraw", "CODRAW", " codraw "])
def test_a_corpus_spelt_as_its_title_is_that_corpus(spelling):
    at = open_page("pages/replay.py", corpus=spelling)
    assert not at.warning and at.query_params["corpus"] == "codraw"
