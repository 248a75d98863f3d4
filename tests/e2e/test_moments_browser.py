"""Issue 46 done-when, in a real browser on ../shared (skipped without it): the three questions of moments, each on
one page in a few clicks, with figures equal to pandas computed here independently of the app's slices code —
(a) among peeked CoDraw dialogs, the peek gain of those with a CR against those without, with its interval (the
Slices page's contrast builder); (b) the most disputed A Game Of Sorts board, each of its plays opening the Replay at
its round (Browse's moments counted by board); (c) the words of Minecraft Architect messages whose Builder actions
after them include a removal, against the other Architect messages (Words, Keyness, A and B as step slices).
Then SQL results of 5,000 dialogs and of 50,000 rounds become slices, are saved, and after a restart (a new server
process on the same store) are used on Browse, the Replay and Words by their ids. One server for the file, one more
for the restart; waits on the app's run mark, never on sleeps."""
from __future__ import annotations

import math
import re
from urllib.parse import urlencode

import numpy as np
import pandas as pd
import pytest

from data_access.words.tokens import tokenize
from tests.conftest import SHARED_DATA, linked_cache

from .conftest import AppServer, wait_for_app

pytestmark = [pytest.mark.e2e, pytest.mark.shared]

CR_A = "peek_gain is not null and crs > 0"
CR_B = "peek_gain is not null and crs = 0"
REMOVAL_A = "steps(role = Architect and removals > 0)"
REMOVAL_B = "steps(role = Architect and removals = 0)"
FIVE_THOUSAND = "SELECT dialog_id FROM dialogs ORDER BY dialog_id LIMIT 5000"
FIFTY_THOUSAND = "SELECT dialog_id, round FROM rounds ORDER BY dialog_id, round LIMIT 50000"


PATHS = {"codraw": SHARED_DATA / "codraw" / "CoDraw_1_0.json.gz", "gos": SHARED_DATA / "game-of-sorts",
         "minecraft": SHARED_DATA / "minecraft"}


@pytest.fixture(scope="module")
def started(tmp_path_factory):
    """The server's folder and setting, and its process started but not waited for: it imports Streamlit while
    ``corpora`` loads the corpora here (the tests ask for ``shared_data`` too: skipped without ../shared)."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    workdir = tmp_path_factory.mktemp("moments")
    env = {"CODRAW_DATA": str(PATHS["codraw"]), "GAME_OF_SORTS_DATA": str(PATHS["gos"]),
           "MINECRAFT_DATA": str(PATHS["minecraft"]), "DIALOGUE_LAYERS_DIR": str(SHARED_DATA / "annotations")}
    server = AppServer(workdir, env, ready=False)  # it reads its cache at its first page, after ``corpora``
    yield workdir, env, server
    server.stop()


@pytest.fixture(scope="module")
def corpora(started, real_cache):
    """The three corpora loaded here (which also builds their Parquet caches, in the run's one cache of the real
    corpora: parsed once a run, linked into the server's own) and the server's setting."""
    from data_access.corpora import load_path
    from data_access.layers.load import load_layer

    workdir, env, _ = started
    loaded = {name: load_path(name, path, cache_root=real_cache) for name, path in PATHS.items()}
    icr = load_layer("codraw-icr", loaded["codraw"], SHARED_DATA / "annotations" / "icr-codraw-data.tsv")
    linked_cache(real_cache, workdir / "cache")  # the server's own cache, starting with the run's entries
    return workdir, env, loaded, icr


@pytest.fixture(scope="module")
def app(started, corpora):
    return started[2].wait_ready()


def _enter(page, label: str, text: str) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(text)
    box.press("Enter")
    wait_for_app(page)


# The header, the cells and each row's first link, read in one call (row by row, 1,000 rows took two minutes)
READ_TABLE = """table => {
    const text = cell => cell.innerText;
    const rows = [...table.querySelectorAll("tbody tr")];
    return [[...table.querySelectorAll("thead th")].map(text), rows.map(row => [...row.querySelectorAll("td")].map(text)),
            rows.map(row => { const link = row.querySelector("a"); return link ? link.getAttribute("href") : null; })];
}"""


def _table(page, key: str) -> tuple[pd.DataFrame, list[str]]:
    """An HTML table of the page (``data-table``): its cells as text, and each row's first link."""
    table = page.locator(f'table[data-table="{key}"]')
    table.wait_for()
    header, rows, links = table.evaluate(READ_TABLE)
    return pd.DataFrame(rows, columns=header), links


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def test_a_the_peek_gain_of_cr_dialogs_against_the_others(shared_data, app, corpora, page):
    _, _, loaded, icr = corpora
    d = loaded["codraw"].dialogs.set_index("dialog_id")
    gain = (d["final_score"] - d["score_before_peek"]).where(d["peek_round"].notna()).dropna()
    rows = icr.annotations
    with_cr = set(rows.loc[rows["is_cr"], "dialog_id"].astype(str))
    a = gain[gain.index.isin(with_cr)].to_numpy()
    b = gain[gain.index.isin(set(rows["dialog_id"].astype(str)) - with_cr)].to_numpy()
    rng = np.random.default_rng(7)  # an interval of our own, with another generator: equal within its error
    boot = (a[rng.integers(0, len(a), (2000, len(a)))].mean(1) - b[rng.integers(0, len(b), (2000, len(b)))].mean(1))

    page.goto(f"{app.url}/slices?corpus=codraw")
    wait_for_app(page)
    _enter(page, "Slice", CR_A)
    _enter(page, "Measure", "peek_gain")
    _enter(page, "Slice B", CR_B)
    figures = page.locator("p.vgd-contrast")
    figures.wait_for()
    said = {name: figures.get_attribute(f"data-{name}") for name in ("diff", "low", "high", "n-a", "n-b", "p")}
    assert (int(said["n-a"]), int(said["n-b"])) == (len(a), len(b)) == (3294, 1068)
    assert math.isclose(float(said["diff"]), a.mean() - b.mean(), abs_tol=1e-12)
    assert abs(float(said["low"]) - np.quantile(boot, 0.025)) < 0.01
    assert abs(float(said["high"]) - np.quantile(boot, 0.975)) < 0.01
    assert float(said["low"]) > 0 and float(said["p"]) < 0.05  # yes: those with a CR gain more after the peek
    assert "Independent groups" in page.get_by_text("percentile bootstrap").first.inner_text()


def test_b_the_most_disputed_board_and_its_plays(shared_data, app, corpora, page):
    _, _, loaded, _ = corpora
    locks = loaded["gos"].frames["lock_events"]
    mismatched = locks[locks["mismatch"]]
    by_board = mismatched.groupby("board_id").size().sort_values(ascending=False, kind="stable")
    board = by_board.index[0]
    plays = mismatched[mismatched["board_id"] == board]
    expected = sorted(zip(plays["interaction_id"], plays["round"].astype(int), plays["step"].astype(int)))

    page.goto(f"{app.url}/slices?corpus=gos")
    wait_for_app(page)
    _enter(page, "Slice", "steps(mismatch)")
    page.get_by_role("link", name="Open in Browse").click()
    wait_for_app(page)
    page.get_by_role("combobox", name="Count the moments by").click()
    page.get_by_role("option", name="board", exact=True).click()
    wait_for_app(page)
    counts, links = _table(page, "moment-counts")
    assert counts.iloc[0]["board"] == board and _number(counts.iloc[0]["moments"]) == by_board.iloc[0]
    page.goto(app.url + links[0] if links[0].startswith("/") else links[0])  # the board's moments
    wait_for_app(page)
    moments, opens = _table(page, "moments")
    found = sorted(zip(moments["dialog id"], moments["round"].map(int), moments["turn"].map(int)))
    assert found == expected
    # each play opens the Replay at its round: the first moment's link, followed
    page.locator('table[data-table="moments"] tbody tr').first.locator("a").first.click()
    wait_for_app(page)
    first = sorted(zip(moments["dialog id"], moments["round"].map(int), moments["turn"].map(int)))[0]
    assert f"dialog={first[0]}" in page.url and f"round={first[1]}" in page.url and f"turn={first[2]}" in page.url
    page.get_by_text(re.compile(r"Moment \d[\d,]* of [\d,]+")).wait_for()
    assert page.get_by_text(f"Round {first[1]}").count() > 0
    # the moments are a list worked through with Enter, as a Coding queue's items are
    opened = page.url
    page.evaluate("() => document.activeElement && document.activeElement.blur()")  # Enter is the page's
    shown = page.get_by_text(re.compile(r"Moment \d[\d,]* of [\d,]+")).first.inner_text()
    number, count = re.search(r"Moment ([\d,]+) of ([\d,]+)", shown).groups()
    page.keyboard.press("Enter")
    page.get_by_text(f"Moment {int(number.replace(',', '')) + 1:,} of {count}").wait_for()
    wait_for_app(page)
    assert page.url != opened and "slice=" in page.url


def _architect_moments(minecraft) -> tuple[list[str], list[str]]:
    """pandas, without the slices code: Architect messages whose Builder actions after them (to the next message;
    the last message takes the rest) hold a removal, and the other Architect messages."""
    u, actions = minecraft.utterances, minecraft.frames["actions"]
    last = minecraft.dialogs.set_index("dialog_id")["n_steps"]
    removed = actions[actions["kind"] == "removal"]
    turns = set(zip(removed["game"], np.minimum(removed["turn"], removed["game"].map(last))))
    architect = u[u["role"] == "Architect"]
    has = [(g, t) in turns for g, t in zip(architect["dialog_id"], architect["turn"])]
    return architect.loc[has, "text"].tolist(), architect.loc[[not h for h in has], "text"].tolist()


def test_c_the_words_before_a_removal(shared_data, app, corpora, page):
    _, _, loaded, _ = corpora
    texts_a, texts_b = _architect_moments(loaded["minecraft"])
    count_a = pd.Series([w for t in texts_a for w in tokenize(str(t))]).value_counts()
    count_b = pd.Series([w for t in texts_b for w in tokenize(str(t))]).value_counts()
    c, d = int(count_a.sum()), int(count_b.sum())

    def g2(a: float, b: float) -> float:  # Dunning's log-likelihood of [[a, b], [c − a, d − b]]
        cells = [(a, (a + b) * c / (c + d)), (b, (a + b) * d / (c + d)),
                 (c - a, (c + d - a - b) * c / (c + d)), (d - b, (c + d - a - b) * d / (c + d))]
        return 2 * sum(o * math.log(o / e) for o, e in cells if o > 0)

    page.goto(f"{app.url}/words?" + urlencode({"view": "Keyness", "in": "minecraft", "b_in": "minecraft",
                                               "slice": REMOVAL_A, "b_slice": REMOVAL_B}))
    wait_for_app(page)
    said = page.get_by_text(re.compile(r"^A: corpus minecraft")).inner_text()
    assert f"({c:,} words)" in said and f"({d:,} words)" in said
    table, _ = _table(page, "keyness")
    for row in table.head(5).to_dict("records"):
        word, a, b = row["word"], _number(row["count a"]), _number(row["count b"])
        assert (a, b) == (count_a.get(word, 0), count_b.get(word, 0)), word
        assert abs(_number(row["g2"]) - g2(a, b)) < 0.05, word
    # the frequency list of A alone: its most frequent words, counted as pandas counts them
    page.goto(f"{app.url}/words?" + urlencode({"in": "minecraft", "slice": REMOVAL_A}))
    wait_for_app(page)
    frequencies, _ = _table(page, "frequency")
    shown = frequencies.head(5)
    assert [int(_number(n)) for n in shown["count"]] == [int(count_a[w]) for w in shown["word"]]
    assert int(_number(shown["count"].iloc[0])) == int(count_a.iloc[0])


def _make_and_save(page, url: str, query: str, name: str) -> None:
    page.goto(f"{url}/slices?corpus=codraw")
    wait_for_app(page)
    page.get_by_label("Query").fill(query)
    page.get_by_role("button", name="Run", exact=True).click()
    wait_for_app(page)
    page.get_by_role("button", name=re.compile(r"Make a slice of this query")).click()
    wait_for_app(page)
    page.get_by_label("Name").fill(name)
    page.get_by_role("button", name="Save", exact=True).click()
    wait_for_app(page)
    page.get_by_text(f"Saved as “{name}”").wait_for()


def test_d_sql_results_of_any_size_saved_and_used_after_a_restart(shared_data, app, corpora, page):
    workdir, env, loaded, _ = corpora
    codraw = loaded["codraw"]
    (workdir / "restart").mkdir(exist_ok=True)
    # A new process on the same store, started now (it imports Streamlit meanwhile) and asked for the slices only
    # after they are saved: it never had them but from the store (a server reads no slice before a page asks).
    again = AppServer(workdir / "restart", {**env, "DIALOGUE_CACHE_DIR": str(workdir / "cache"),
                                            "DIALOGUE_NOTES_DB": str(workdir / "notes.sqlite3")}, ready=False)
    try:
        _make_and_save(page, app.url, FIVE_THOUSAND, "five thousand dialogs")
        _make_and_save(page, app.url, FIFTY_THOUSAND, "fifty thousand rounds")
        from data_access.store import Store

        saved = Store(workdir / "notes.sqlite3").slices.list()
        ids = dict(zip(saved["name"], saved["id"]))
        again.wait_ready()
        dialogs = sorted(codraw.dialogs["dialog_id"].astype(str))[:5000]
        rounds = codraw.frames["rounds"].sort_values(["dialog_id", "round"]).head(50000)
        u = codraw.utterances
        words_of = {"dialogs": sum(len(tokenize(str(t))) for t in u.loc[u["dialog_id"].isin(set(dialogs)), "text"]),
                    "rounds": sum(len(tokenize(str(t))) for t in u.loc[pd.MultiIndex.from_arrays(
                        [u["dialog_id"], u["turn"]]).isin(pd.MultiIndex.from_arrays([rounds["dialog_id"], rounds["round"]])),
                        "text"])}
        for name, kind, count in (("five thousand dialogs", "dialogs", "5,000 dialogs"),
                                  ("fifty thousand rounds", "rounds", "50,000 steps")):
            slice_id = ids[name]
            page.goto(f"{again.url}/browse?corpus=codraw&slice=@{slice_id}")
            wait_for_app(page)
            said = page.locator('[data-testid="stAlertContentInfo"]').first.inner_text()
            assert name in said and count in said, said
            if kind == "rounds":
                moments, _ = _table(page, "moments")
                assert len(moments) == 1000
                page.locator('table[data-table="moments"] tbody tr').first.locator("a").first.click()
                wait_for_app(page)
                page.get_by_text("Moment 1 of 50,000").wait_for()
            else:
                page.goto(f"{again.url}/replay?corpus=codraw&slice=@{slice_id}&dialog={dialogs[0]}")
                wait_for_app(page)
                page.get_by_text("dialog 1 of 5,000 in the slice").wait_for()
            page.goto(f"{again.url}/words?in=codraw&slice=@{slice_id}")
            wait_for_app(page)
            assert page.get_by_text(re.compile(rf"^{words_of[kind]:,} words \(")).count() == 1
    finally:
        again.stop()
