"""Step slices on the pages (issue 46, item 2) on the demo corpora: Browse lists the moments, counted by a feature,
each opening the Replay at its step in its round; the Replay and Present walk them ("moment k of N"); Words counts only the
messages of the moments (A and B as step slices), Search finds only in them, an analysis page contrasts the
moments' dialogs in the builder; the Coding queue samples moments; the Slices page's contrast
builder gives the figures of the data layer; a saved slice opens by its id, a SQL one evaluated again."""
from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import parse_qsl

import numpy as np
import pandas as pd

from data_access import slices
from data_access.corpora import demo_path, load_path
from data_access.slices.measures import contrast_slices
from data_access.words.tokens import tokenize

from .conftest import open_page

MISMATCH = "steps(mismatch)"
REMOVALS = "steps(role = Architect and removals > 0)"
OTHERS = "steps(role = Architect and removals = 0)"


def _data(corpus: str) -> tuple:
    loaded = load_path(corpus, demo_path(corpus))
    return loaded, slices.slice_data(loaded)


def _frames(at) -> list:
    return [d.value for d in at.dataframe]


def _said(elements) -> str:
    """The texts of ``elements`` with markdown's escapes removed."""
    return re.sub(r"\\(.)", r"\1", " ".join(e.value for e in elements))


class _Cells(HTMLParser):
    """The header, cells and links of an HTML table (the standard library's parser)."""

    def __init__(self):
        super().__init__()
        self.rows: list[list[str]] = []
        self.links: list[str] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = []
        elif tag == "a" and self.rows and len(self.links) < len(self.rows) - 1:
            self.links.append(dict(attrs)["href"])

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append("".join(self.cell).strip())
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def _table(at, key: str) -> tuple[pd.DataFrame, list[str]]:
    """The HTML table ``key`` the page shows (``data-table``): its cells (numbers as numbers), each row's link."""
    body = next(h.proto.body for h in at.get("html") if f'data-table="{key}"' in h.proto.body)
    parser = _Cells()
    parser.feed(body)
    frame = pd.DataFrame(parser.rows[1:], columns=parser.rows[0])
    for column in frame.columns:
        numbers = pd.to_numeric(frame[column].str.replace(",", ""), errors="coerce")
        if numbers.notna().all():
            frame[column] = numbers
    return frame, parser.links


def test_browse_lists_the_moments_each_opening_the_replay_at_its_round():
    loaded, data = _data("gos")
    expected = slices.step_keys(MISMATCH, data)
    at = open_page("browse", corpus="gos", slice=MISMATCH)
    moments, links = _table(at, "moments")
    assert len(moments) == len(links) == len(expected) > 0 and set(moments["mismatch"]) == {"yes"}
    for link, (dialog, round_, turn) in zip(links, expected.itertuples(index=False)):
        assert f"dialog={dialog}" in link and f"round={round_}&turn={turn}&" in link and "slice=steps%28mismatch%29" in link
    # counted by board: the board with the most mismatched locks first, as pandas counts them
    at = open_page("browse", corpus="gos", slice=MISMATCH, moments_by="board")
    counts, links = _table(at, "moment-counts")
    locks = loaded.frames["lock_events"]
    by_board = locks[locks["mismatch"]].groupby("board_id").size().sort_values(ascending=False)
    assert counts["moments"].tolist() == by_board.tolist() and counts["board"].iloc[0] == by_board.index[0]
    assert f"moments_of={by_board.index[0]}" in links[0]
    at = open_page("browse", corpus="gos", slice=MISMATCH, moments_by="board", moments_of=by_board.index[0])
    assert len(_table(at, "moments")[0]) == by_board.iloc[0]


def test_the_replay_walks_the_moments():
    _, data = _data("minecraft")
    keys = slices.step_keys(REMOVALS, data)
    first, second = keys.iloc[0], keys.iloc[1]
    at = open_page("replay", corpus="minecraft", dialog=first["dialog_id"], turn=str(first["turn"]), slice=REMOVALS)
    # walked as a list, like a Coding queue's items: "Moment k of N", the previous and the next moment (Enter)
    assert any(m.value.startswith(f"**Moment 1 of {len(keys):,}**") for m in at.markdown)
    previous, following = (next(b for b in at.button if b.key == key) for key in ("item_flow_previous", "item_flow_next"))
    assert previous.disabled and not following.disabled and following.label == "next moment ▶"
    following.click().run()
    assert (at.query_params["dialog"], at.query_params["turn"]) == (second["dialog_id"], str(second["turn"]))
    assert any(m.value.startswith(f"**Moment 2 of {len(keys):,}**") for m in at.markdown)
    next(b for b in at.button if b.key == "item_flow_previous").click().run()
    assert (at.query_params["dialog"], at.query_params["turn"]) == (first["dialog_id"], str(first["turn"]))
    assert int(first["turn"]) > 1  # the demo's first moment: its dialog's turn 1 is outside the slice
    outside = open_page("replay", corpus="minecraft", dialog=first["dialog_id"], turn="1", slice=REMOVALS)
    assert f"this step is not one of the slice's {len(keys):,} moments" in _said(outside.caption)
    # Present walks them too, each link to Present at the moment
    present = open_page("present", corpus="minecraft", dialog=second["dialog_id"], turn=str(second["turn"]),
                        slice=REMOVALS)
    assert not present.exception and f"moment 2 of {len(keys):,}" in _said(present.caption)
    walk = [link for link in present.get("page_link") if "moment" in link.proto.label]
    assert [link.proto.page for link in walk] == ["present", "present"]
    assert dict(parse_qsl(walk[0].proto.query_string))["turn"] == str(first["turn"])


def test_words_counts_the_messages_of_the_moments():
    loaded, data = _data("minecraft")

    def words(text: str) -> int:
        keys = set(map(tuple, slices.step_keys(text, data)[["dialog_id", "turn"]].itertuples(index=False)))
        u = loaded.utterances
        chosen = [t for d, turn, t in zip(u["dialog_id"], u["turn"], u["text"]) if (d, turn) in keys]
        return sum(len(tokenize(str(t))) for t in chosen)

    at = open_page("words", view="Keyness", slice=REMOVALS, b_slice=OTHERS, **{"in": "minecraft", "b_in": "minecraft"})
    said = _said(at.caption)
    a, b = words(REMOVALS), words(OTHERS)
    assert a > 0 and b > 0
    assert f"({a:,} words)" in said and f"({b:,} words)" in said


def test_search_finds_only_in_the_messages_of_the_moments():
    loaded, data = _data("minecraft")
    keys = set(map(tuple, slices.step_keys(REMOVALS, data)[["dialog_id", "turn"]].itertuples(index=False)))
    u = loaded.utterances
    moments = u[[(d, t) in keys for d, t in zip(u["dialog_id"], u["turn"])]]
    expected = int(moments["text"].astype(str).str.contains(r"(?<![^\W_])the(?![^\W_])", case=False).sum())
    whole = int(u["text"].astype(str).str.contains(r"(?<![^\W_])the(?![^\W_])", case=False).sum())
    at = open_page("search", q="the", slice=REMOVALS)
    assert not at.exception
    assert 0 < expected < whole
    assert {m.label: m.value for m in at.metric}["Minecraft Collaborative Building"] == str(expected)


def test_an_analysis_page_takes_a_step_slice_and_contrasts_its_dialogs():
    loaded, data = _data("gos")
    first_rounds = "steps(mismatch and round = 1)"
    keys = slices.step_keys(first_rounds, data)
    at = open_page("gos_outcomes", slice=first_rounds)
    assert not at.exception and not at.error and not at.warning, [e.value for e in at.warning]
    assert f"{len(keys):,} steps in {keys['dialog_id'].nunique():,} dialogs" in _said(at.info)
    # the step-level figures on the moments (lock events: none is a message), the others on their dialogs
    assert "No in-round message refers to an image before a rank." in _said(at.markdown)
    assert "No in-round message" not in _said(open_page("gos_outcomes", slice="has_step(mismatch and round = 1)").markdown)
    dialogs = loaded.dialogs.set_index("dialog_id")["mismatches"]
    mine = dialogs.index.isin(set(keys["dialog_id"]))
    assert [m.value for m in at.metric if m.label.endswith("the slice")] == [f"{dialogs[mine].mean():.2f}"]
    link = next(p for p in at.get("page_link") if p.proto.label == "Contrast it in the builder")
    target = dict(parse_qsl(link.proto.query_string))
    assert link.proto.page == "slices" and target["b_slice"] == "rest" and target["measure"] == "mismatches"
    assert target["slice"] == "has_step(mismatch and round = 1)"


def test_the_coding_queue_samples_moments():
    at = open_page("coding_queue", slice=MISMATCH, corpus="gos")
    radio = next(r for r in at.radio if r.label == "Sample")
    assert radio.options[0] == "moments"


def test_the_contrast_builder_gives_the_data_layers_figures():
    _, data = _data("gos")
    expected = contrast_slices(data, "mismatch", "steps(round = 1)", "rest")
    at = open_page("slices", corpus="gos", slice="steps(round = 1)", b_slice="rest", measure="mismatch")
    html = " ".join(h.proto.body for h in at.get("html") if "vgd-contrast" in h.proto.body)
    diff = float(re.search(r'data-diff="([^"]+)"', html).group(1))
    assert np.isclose(diff, expected.diff) and f'data-n-a="{expected.n_a}"' in html
    assert f'data-paired="{expected.paired_by or ""}"' in html
    assert any("Link to this contrast" in m.value for m in at.markdown)


def test_a_saved_sql_slice_opens_by_its_id(tmp_path, monkeypatch):
    from data_access.store import Store

    monkeypatch.setenv("DIALOGUE_NOTES_DB", str(tmp_path / "notes.sqlite3"))
    store = Store(tmp_path / "notes.sqlite3")
    rounds = load_path("codraw", demo_path("codraw")).frames["rounds"]
    query = "sql:SELECT dialog_id, round FROM rounds WHERE score_final > 3"
    slice_id = store.slices.save("good rounds", query, corpus="codraw")
    at = open_page("browse", corpus="codraw", slice=f"@{slice_id}")
    info = _said(at.info)
    expected = int((rounds["score_final"] > 3).sum())
    assert "good rounds" in info and f"{expected:,} steps" in info
    moments, links = _table(at, "moments")
    assert len(moments) == min(expected, 1000) and f"slice=%40{slice_id}" in links[0]


def test_compare_offers_the_moments_on_each_side():
    _, data = _data("gos")
    keys = slices.step_keys(MISMATCH, data)
    assert len(keys) >= 3 and keys["round"].nunique() > 1  # the demo's moments are in more than one round
    at = open_page("compare", corpus="gos", slice=MISMATCH)
    # a link naming no dialog opens the first two moments, each side at its step in its round, stepping apart
    for (param, round_param, step_param), moment in ((("left", "lround", "lstep"), keys.iloc[0]),
                                                     (("right", "rround", "rstep"), keys.iloc[1])):
        assert at.query_params[param] == moment["dialog_id"] and at.query_params[round_param] == str(moment["round"])
        assert at.query_params[step_param] == str(moment["turn"])
    assert at.query_params["together"] == "0" and at.query_params["board"] == "any"  # a moment may be another board
    said = _said(at.caption)
    assert f"moment 1 of {len(keys):,} in the slice" in said and f"moment 2 of {len(keys):,} in the slice" in said
    assert at.selectbox(key="compare_moment_left").value == 0
    # the right side's list opens another moment there, the left side staying where it was
    third = keys.iloc[2]
    at.selectbox(key="compare_moment_right").set_value(2).run()
    assert not at.exception
    assert (at.query_params["right"], at.query_params["rround"], at.query_params["rstep"]) == (
        third["dialog_id"], str(third["round"]), str(third["turn"]))
    assert at.query_params["left"] == keys.iloc[0]["dialog_id"]
    said = _said(at.caption)
    assert f"moment 3 of {len(keys):,} in the slice" in said and f"moment 1 of {len(keys):,}" in said
