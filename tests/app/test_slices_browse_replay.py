"""``slice=`` on Browse (its dialogs, its count equal to pandas, its sort in the URL, a view made into a slice)
and on the Replay (the picker offers the slice's dialogs; previous / next dialog of the slice) on the demo
corpora; a bad slice is said and the page shows everything."""
from __future__ import annotations

from urllib.parse import parse_qs

from data_access.corpora import load_path
from tests.app.conftest import open_page
from ui.widgets import md_escape


def _long_ids(tmp_path) -> list[str]:
    dialogs = load_path("codraw", None, cache_root=tmp_path).dialogs
    return sorted(dialogs.loc[(dialogs["n_rounds"] >= 7) & (dialogs["split"] != "test"), "dialog_id"])


def test_browse_shows_the_slice_sorted_as_the_link_says(tmp_path):
    expected = _long_ids(tmp_path)
    at = open_page("browse", slice="n_rounds >= 7 and not split = test", sort="n_rounds", desc="1")
    shown = at.dataframe[0].value
    assert sorted(shown["dialog_id"]) == expected and len(expected) > 1
    assert list(shown["n_rounds"]) == sorted(shown["n_rounds"], reverse=True)
    said = f"CoDraw · rounds ≥ 7 · not split = test · {len(expected)} dialogs"
    assert [m.value for m in at.info] == [f"**Slice**: {md_escape(said)}"]
    assert any("by rounds, descending" in c.value for c in at.caption)
    assert at.query_params["sort"] == ["n_rounds"] or at.query_params["sort"] == "n_rounds"


def test_browse_with_a_bad_slice_warns_and_shows_every_dialog(tmp_path):
    total = len(load_path("codraw", None, cache_root=tmp_path).dialogs)
    at = open_page("browse", slice="n_rounds >>= 3")
    assert any("is not one" in w.value for w in at.warning)
    assert len(at.dataframe[0].value) == total


def test_a_browse_view_becomes_a_slice_in_one_click():
    at = open_page("browse", split="train", n_rounds="8..")
    button = next(b for b in at.button if b.label.startswith("Make a slice of these"))
    shown = len(at.dataframe[0].value)
    assert button.label == f"Make a slice of these {shown} dialogs"
    button.click().run()
    params = dict(at.query_params)
    text = params["slice"][0] if isinstance(params["slice"], list) else params["slice"]
    assert text == "split = train and n_rounds >= 8"
    assert any(f"· {shown} dialogs" in m.value for m in at.info)  # the Slices page, same count


def test_the_replay_plays_the_slice_like_a_playlist(tmp_path):
    expected = _long_ids(tmp_path)
    at = open_page("replay", slice="n_rounds >= 7 and not split = test")
    picker = at.selectbox(key="codraw_dialog")
    assert set(picker.options) <= {o for o in picker.options} and len(picker.options) == len(expected)
    first = at.query_params["dialog"]
    first = first[0] if isinstance(first, list) else first
    assert first in expected
    assert any(f"dialog 1 of {len(expected)} in the slice" in c.value for c in at.caption)
    nexts = [b for b in at.get("page_link") if "Next in the slice" in b.proto.label]
    assert nexts[0].proto.page == "replay"
    target = parse_qs(nexts[0].proto.query_string)
    assert target["slice"] == ["n_rounds >= 7 and not split = test"] and target["dialog"][0] != first
    at = open_page("replay", slice=target["slice"][0], dialog=target["dialog"][0])
    assert any(f"dialog 2 of {len(expected)} in the slice" in c.value for c in at.caption)
    assert any("Previous in the slice" in b.proto.label for b in at.get("page_link"))


def test_compare_offers_the_slice_on_both_sides(tmp_path):
    expected = _long_ids(tmp_path)
    at = open_page("compare", slice="n_rounds >= 7 and not split = test")
    pickers = [s for s in at.selectbox if s.label in ("Left dialog", "Right dialog")]
    assert len(pickers) == 2 and all(sorted(o.split(" · ")[0] for o in p.options) == expected for p in pickers)


def test_the_coding_queue_samples_from_the_slice(tmp_path):
    from data_access.store import CodingStore

    expected = set(_long_ids(tmp_path))
    at = open_page("pages/coding_queue.py", coder="ann", slice="n_rounds >= 7 and not split = test")
    assert any("Slice" in m.value for m in at.info)
    next(n for n in at.number_input if n.label == "How many").set_value(len(expected) + 5)  # more than it has
    next(b for b in at.button if b.label == "Create / extend queue").click().run()
    assert not at.exception
    sampled = set(CodingStore().queue_items("codraw-pilot", coder="ann")["dialog_id"])
    assert sampled == expected  # every dialog of the slice, and none outside it
