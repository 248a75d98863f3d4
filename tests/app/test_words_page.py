"""The Words page and the Search page's filters and concordance, on the demo corpora: counts equal a plain count
through the one tokenisation, filters come from the URL, and each concordance line links to the replay in the
same tab with the hit list the Replay walks."""
from __future__ import annotations

import re
from collections import Counter
from urllib.parse import parse_qsl

from data_access.common import CORPUS_NAMES
from data_access.corpora import load_configured
from data_access.words.tokens import tokenize

from .conftest import open_page


def _words(role=None, corpora=CORPUS_NAMES) -> Counter:
    counts = Counter()
    for corpus in corpora:
        utterances = load_configured(corpus).utterances
        for speaker_role, text in zip(utterances["role"], utterances["text"]):
            if role is None or speaker_role == role:
                counts.update(tokenize(text))
    return counts


def _table(at, name: str) -> list[tuple[str, int]]:
    body = next(h.proto.body for h in at.get("html") if f'data-table="{name}"' in h.proto.body)
    return [(word, int(count.replace(",", ""))) for word, count in
            re.findall(r'data-word="([^"]+)">[^<]*</a></td><td class="num">([\d,]+)</td>', body)]


def _kwic(at) -> str:
    return next(h.proto.body for h in at.get("html") if "vgd-kwic" in h.proto.body and "data-hits" in h.proto.body)


def test_frequency_list_equals_a_plain_count_and_follows_the_role_filter():
    expected = _words()
    at = open_page("words")
    assert not at.exception
    rows = _table(at, "frequency")
    assert rows[:5] == [(w, expected[w]) for w, _ in rows[:5]]
    assert rows[0][1] == max(expected.values())
    drawer = _words("Drawer")
    at = open_page("words", role="Drawer")
    rows = _table(at, "frequency")
    assert all(count == drawer[word] for word, count in rows)
    assert any(f"{sum(drawer.values()):,} words".replace(",", "\\,") in c.value for c in at.caption)


def test_a_word_clicked_shows_its_concordance_with_same_tab_replay_links():
    at = open_page("words", w="the", role="Drawer")
    body = _kwic(at)
    expected = _words("Drawer")["the"]
    assert f'data-hits="{expected}"' in body
    links = re.findall(r'<a class="vgd-kwic-line" href="([^"]+)" target="_self"', body)
    assert len(links) == min(expected, 100)
    params = dict(parse_qsl(links[0].replace("&amp;", "&").split("?", 1)[1]))
    assert params["hl"].lower() == "the" and params["hit"] == "1" and "role=Drawer" in params["kwic"]
    replay = open_page("replay", **params)
    assert not replay.exception
    nav = next(h.proto.body for h in replay.get("html") if "vgd-hit-nav" in h.proto.body)
    assert f"hit 1 of {expected}" in nav and 'data-nav="next"' in nav


def test_keyness_and_collocations_show_their_tables():
    at = open_page("words", view="Keyness", role="Drawer", b_role="Teller", min="1")
    assert not at.exception
    rows = _table(at, "keyness")
    a, b = _words("Drawer"), _words("Teller")
    assert rows and all(count == a[word] for word, count in rows)  # count_a is the first number after the word
    assert any(b[w] != a[w] for w, _ in rows)
    at = open_page("words", view="Collocations", q="the")
    assert not at.exception and _table(at, "collocations")


def test_search_filters_restrict_the_hits_and_the_concordance():
    plain = open_page("search", q="the")
    drawer = open_page("search", q="the", role="Drawer")
    count = lambda at: sum(int(m.value.replace(",", "")) for m in at.metric)
    assert count(drawer) < count(plain)
    assert f'data-hits="{_words("Drawer")["the"]}"' in _kwic(drawer)
    codraw_only = open_page("search", q="the", corpus="codraw", **{"in": "codraw"})
    assert f'data-hits="{_words(corpora=["codraw"])["the"]}"' in _kwic(codraw_only)


def _count_where(corpus: str, keep) -> Counter:
    utterances = load_configured(corpus).utterances
    counts = Counter()
    for row in utterances.itertuples(index=False):
        if keep(row):
            counts.update(tokenize(row.text))
    return counts


def test_published_layer_filters_select_the_labelled_messages(isolated_environment):
    from data_access.corpora import load_path
    from data_access.layers.load import demo_layer_path, load_layer

    cache = isolated_environment / "cache"
    layer = load_layer("codraw-icr", load_path("codraw", None, cache_root=cache), demo_layer_path("codraw-icr", cache), True)
    crs = {(d, int(t)) for d, t, label in zip(layer.annotations["dialog_id"], layer.annotations["turn"],
                                              layer.annotations["label"]) if label == "CR"}
    expected = _count_where("codraw", lambda r: r.role == "Drawer" and (r.dialog_id, int(r.turn)) in crs)
    assert expected["the"] > 0
    at = open_page("words", role="Drawer", cr="CR", w="the", timeout=180)
    assert not at.exception
    assert all(count == expected[word] for word, count in _table(at, "frequency"))
    assert f'data-hits="{expected["the"]}"' in _kwic(at)


def test_own_codes_filter_reads_the_coding_store():
    from data_access.coding import codebook as cb
    from data_access.store import CodingStore

    store = CodingStore()
    book = store.save_codebook(cb.Codebook("clarification", (cb.Label("CR", scope="turn"),)))
    utterances = load_configured("codraw").utterances
    first = utterances.iloc[0]
    store.add_annotation("codraw", first["dialog_id"], codebook=book, label="CR", coder="ann", turn=int(first["turn"]))
    expected = _count_where("codraw", lambda r: r.dialog_id == first["dialog_id"] and r.turn == first["turn"])
    at = open_page("words", code="CR", coder="ann")
    assert not at.exception
    assert dict(_table(at, "frequency")) == dict(expected)
    assert open_page("words", code="CR", coder="gold").get("html") is not None
    assert _table(open_page("words", code="CR", coder="gold"), "frequency") == []


def test_a_two_word_sequence_opens_the_concordance_of_that_phrase():
    at = open_page("words", n="2-word sequences")
    word, count = _table(at, "frequency")[0]
    assert " " in word
    at = open_page("words", n="2-word sequences", w=word)
    assert f'data-hits="{count}"' in _kwic(at)


def test_search_draws_its_filters_when_asked_or_linked():
    labels = lambda at: {s.label for s in at.selectbox}
    plain = open_page("search", q="the")
    assert "CoDraw final score" not in labels(plain)  # a first visit stays light: no filter widget, no word index
    assert "CoDraw final score" in labels(open_page("search", q="the", filter="1"))
    linked = open_page("search", q="the", role="Drawer")
    assert "CoDraw final score" in labels(linked)
    assert any("(role Drawer)" in c.value.replace("\\", "") for c in linked.caption)
