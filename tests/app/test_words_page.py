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
