"""The Words page on slices (issue 37): sub-corpus A is the URL's slice (``slice=``, every page's), B is
``b_slice=``; a role (or corpus, split) is one click, since no pill is on until one is chosen; and a concordance's
hits are one click from their dialogs as a slice, per corpus."""
from __future__ import annotations

from data_access.corpora import demo_path, load_path
from data_access.slices import parse
from data_access.words.tokens import tokenize

from .conftest import open_page


def captions(at) -> str:
    return "\n".join(c.value for c in at.caption)


def _words_of(corpus: str, split: str) -> int:
    """Independent count: the words of the corpus's messages in dialogs of ``split``."""
    loaded = load_path(corpus, demo_path(corpus))
    ids = set(loaded.dialogs.loc[loaded.dialogs["split"] == split, "dialog_id"].astype(str))
    texts = loaded.utterances.loc[loaded.utterances["dialog_id"].astype(str).isin(ids), "text"]
    return sum(len(tokenize(str(t))) for t in texts)


def test_sub_corpora_a_and_b_are_slices_in_the_url():
    at = open_page("words", view="Keyness", slice="split = train", b_slice="split = val", **{"in": "minecraft",
                                                                                             "b_in": "minecraft"})
    a, b = _words_of("minecraft", "train"), _words_of("minecraft", "val")
    assert f"slice split \\= train \\({a:,} words\\)" in captions(at).replace("\\,", ",")
    assert f"slice split \\= val \\({b:,} words\\)" in captions(at).replace("\\,", ",")
    assert "Minecraft Collaborative Building · split \\= train · 3 dialogs" in captions(at)
    whole = open_page("words", **{"in": "minecraft"})
    assert "in 8 dialogs" in captions(whole)
    sliced = open_page("words", slice="split = train", **{"in": "minecraft"})
    assert "in 3 dialogs" in captions(sliced) and f"{a:,} words".replace(",", "\\,") in captions(sliced)


def test_a_slice_that_does_not_parse_is_said_and_not_applied():
    at = open_page("words", slice="split = = train", **{"in": "minecraft"})
    assert any("Not a slice" in w.value for w in at.warning)
    assert "in 8 dialogs" in captions(at)
    hostile = open_page("words", view="Keyness", b_slice="(" * 5_000 + "x" * 20_000, **{"in": "minecraft"})
    assert any("Not a slice" in w.value for w in hostile.warning)


def test_a_role_is_one_click():
    at = open_page("words")
    roles = next(p for p in at.get("pills") if p.label == "Speaker role")
    assert roles.value == []  # none on: all roles
    roles.set_value(["Drawer"]).run()
    assert at.query_params["role"] == ["Drawer"] or at.query_params["role"] == "Drawer"
    assert "role Drawer" in captions(at)


def test_a_concordance_is_one_click_from_its_slice():
    at = open_page("words", slice="split = train", w="the", **{"in": "codraw"})
    button = next(b for b in at.button if b.label.startswith("Make a slice of the"))
    assert button.label.endswith("dialogs of these hits")
    button.click().run()
    slice_text = at.query_params["slice"]
    slice_text = slice_text[0] if isinstance(slice_text, list) else slice_text
    ids = parse(slice_text).values
    loaded = load_path("codraw", demo_path("codraw"))
    train = set(loaded.dialogs.loc[loaded.dialogs["split"] == "train", "dialog_id"])
    with_the = {d for d, t in zip(loaded.utterances["dialog_id"], loaded.utterances["text"]) if "the" in tokenize(str(t))}
    assert set(ids) == train & with_the
