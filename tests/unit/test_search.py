"""Search: AND of words, phrases, case, whole words by default (substrings as an option), RE2 regular
expressions, metacharacter escaping, KWIC context, exact counts per corpus, pages per corpus, friendly
errors and deep links that carry the match."""
from __future__ import annotations

import re

import pandas as pd
import pytest

from data_access.common import UTTERANCE_COLUMNS
from data_access.search import InvalidQuery, QueryTooSlow, SearchIndex, compile_query, search, split_words


def _utterances(corpus, dialog_id, texts, rounds=None):
    n = len(texts)
    return pd.DataFrame({
        "corpus": corpus,
        "dialog_id": dialog_id,
        "round": pd.array(rounds if rounds is not None else [None] * n, dtype="Int64"),
        "turn": list(range(1, n + 1)),
        "speaker": ["A" if i % 2 == 0 else "B" for i in range(n)],
        "role": ["Teller" if i % 2 == 0 else "Drawer" for i in range(n)],
        "text": pd.Series(texts, dtype="str"),
        "time_s": [float(i) for i in range(n)],
    })[UTTERANCE_COLUMNS]


@pytest.fixture(scope="module")
def index() -> SearchIndex:
    return SearchIndex.build([
        _utterances("codraw", "c1", ["Put the sun on the LEFT.", "left of the tree?", "a.b c (x) leftover", "Café au lait"]),
        _utterances("codraw", "c2", ["nothing here", "the sun is big"]),
        _utterances("gos", "g1", ["Left left Left", "sort the sun images", "no"], rounds=[1, 2, 4]),
        _utterances("minecraft", "m1", ["place a red block", "[Builder puts down a red block at X:0 Y:1 Z:0]"]),
    ])


def test_counts_per_corpus_are_exact_and_include_empty_corpora(index):
    result = index.search("left", whole_word=False)
    counts = result.counts.set_index("corpus")
    assert counts.loc["codraw", "n_utterances"] == 3  # LEFT, left, leftover
    assert counts.loc["codraw", "n_dialogs"] == 1
    assert counts.loc["gos", "n_utterances"] == 1
    assert counts.loc["minecraft", "n_utterances"] == 0
    assert counts.loc["codraw", "total_utterances"] == 6
    assert counts.loc["codraw", "share"] == pytest.approx(0.5)
    assert result.total == 4 and len(result.hits) == 4 and not result.truncated


def test_case_sensitivity(index):
    assert index.search("left", case_sensitive=True, whole_word=False).total == 3  # "left of", "leftover", "Left left Left"
    assert index.search("LEFT", case_sensitive=True).total == 1
    assert index.search("LEFT", whole_word=False).total == 4


def test_words_match_whole_words_by_default_and_substrings_on_request():
    index = SearchIndex.build(_utterances("codraw", "t", ["a tree", "the street", "Trees", "tree-top", "TREE."]))
    assert index.search("tree").hits["text"].tolist() == ["a tree", "tree-top", "TREE."]
    assert index.search("tree", whole_word=False).total == 5
    assert compile_query("tree").whole_word and not compile_query("tree", mode="regex").whole_word
    assert index.search("tre+", mode="regex").total == 5  # a regex means what it says
    assert index.search("tre+", mode="regex", whole_word=True).total == 3


def test_whole_word_excludes_longer_words(index):
    result = index.search("left", whole_word=True)
    assert result.total == 3
    assert "leftover" not in result.hits["text"].str.cat()
    # a word that is not ASCII-only is still bounded correctly
    assert index.search("caf", whole_word=True).total == 0
    assert index.search("café", whole_word=True).total == 1


def test_words_are_anded_and_phrases_kept_together(index):
    assert index.search("sun the").total == 3
    assert index.search("sun tree").total == 0
    assert index.search("sun tree", whole_word=False).total == 0
    assert index.search('"the sun"').total == 3
    assert index.search('"sun the"').total == 0
    assert split_words('red "sun  is" big "open') == ["red", "sun is", "big", "open"]


def test_word_mode_escapes_metacharacters(index):
    assert index.search("a.b").total == 1
    assert index.search("a?b").total == 0
    assert index.search("(x)").total == 1
    assert index.search("X:0").total == 1
    assert index.search("[Builder", whole_word=False).total == 1
    # the same text as a regex means something else
    assert index.search("t.e").total == 0
    assert index.search("t.e", mode="regex").total > 1


def test_regex_mode(index):
    assert index.search(r"^l\w+", mode="regex").total == 2  # "left of", "Left left Left"
    assert index.search(r"red (block|cube)", mode="regex").total == 2
    assert index.search(r"LEFT\.$", mode="regex", case_sensitive=True).total == 1


def test_look_around_and_back_references_get_a_clear_message(index):
    for pattern, what in [(r"(?<=the )sun", "Look-behind"), (r"(?<!x)sun", "Look-behind"), (r"sun(?= is)", "Look-ahead"),
                          (r"^(?!zzz)(\w+\s?)*$", "Look-ahead"), (r"(s)un\1", "Back-references"),
                          (r"(?P<a>s)(?P=a)", "Back-references")]:
        with pytest.raises(InvalidQuery, match=what):
            index.search(pattern, mode="regex")
    # RE2's \w and \b are ASCII; whole words use Unicode letters
    assert index.search(r"caf\b", mode="regex").total == 1
    assert index.search(r"caf", mode="regex", whole_word=True).total == 0


def test_kwic_context_is_exact(index):
    hits = index.search("sun", limit=None, context=8).hits
    first = hits.iloc[0]
    assert (first["left"], first["match"], first["right"]) == ("Put the ", "sun", " on the …")
    for row in hits.itertuples():
        assert row.match.lower() == "sun"
    hits = index.search("left", case_sensitive=True, whole_word=True).hits
    gos = hits[hits["corpus"] == "gos"].iloc[0]
    assert (gos["left"], gos["match"], gos["right"]) == ("Left ", "left", " Left")
    long = SearchIndex.build(_utterances("codraw", "c9", ["x" * 100 + " needle " + "y" * 100])).search("needle", context=10).hits
    assert long.iloc[0]["left"] == "…" + "x" * 9 + " "
    assert long.iloc[0]["right"] == " " + "y" * 9 + "…"


def test_kwic_marks_first_match_with_unicode_before_it():
    index = SearchIndex.build(_utterances("codraw", "u", ["ééé 🙂 left and left"]))
    hit = index.search("left").hits.iloc[0]
    assert (hit["left"], hit["match"], hit["right"]) == ("ééé 🙂 ", "left", " and left")


def test_limit_caps_rows_but_not_counts():
    many = SearchIndex.build(_utterances("codraw", "big", [f"word {i}" for i in range(1200)]))
    result = many.search("word", limit=500)
    assert result.total == 1200 and len(result.hits) == 500 and result.truncated
    assert result.counts["n_utterances"].tolist() == [1200]
    assert result.hits["turn"].tolist() == list(range(1, 501))


def test_invalid_queries_raise_friendly_error(index):
    with pytest.raises(InvalidQuery, match="not a valid regular expression"):
        index.search("(unclosed", mode="regex")
    with pytest.raises(InvalidQuery, match=re.escape("invalid repetition size at “{2,1}”")):
        compile_query("a{2,1}", mode="regex")
    with pytest.raises(InvalidQuery, match="limited to"):
        compile_query("a" * 501, mode="regex")
    with pytest.raises(InvalidQuery):
        index.search("   ")
    # the same text in word mode is fine
    assert index.search("(unclosed").total == 0


def test_links_point_at_turn_and_round(index):
    hits = index.search("sun").hits
    codraw = hits[hits["dialog_id"] == "c1"].iloc[0]
    assert codraw["link"] == "/replay?corpus=codraw&dialog=c1&turn=1&hl=sun"
    gos = hits[hits["corpus"] == "gos"].iloc[0]
    assert gos["link"] == "/replay?corpus=gos&dialog=g1&round=2&turn=2&hl=sun"
    assert gos["round"] == 2 and pd.isna(codraw["round"])


def test_corpus_filter_and_one_off_search(index):
    result = index.search("sun", corpora=["gos"])
    assert result.total == 1 and result.counts["corpus"].tolist() == ["gos"]
    frame = _utterances("codraw", "x", ["alpha beta", "beta"])
    assert search(frame, "beta").total == 2


def test_empty_index():
    empty = SearchIndex.build(pd.DataFrame({c: pd.Series(dtype="object") for c in UTTERANCE_COLUMNS}))
    result = empty.search("anything")
    assert result.total == 0 and result.hits.empty and result.counts.empty


def test_every_corpus_pages_through_its_own_hits():
    index = SearchIndex.build([
        _utterances("codraw", "c", [f"tree {i}" for i in range(120)]),
        _utterances("gos", "g", ["a tree", "no", "tree again"], rounds=[1, 1, 2]),
        _utterances("minecraft", "m", ["the tree is here"]),
    ])
    result = index.search("tree", limit=0)
    assert result.hits.empty and result.total == 123
    assert [result.n_hits(c) for c in ("codraw", "gos", "minecraft")] == [120, 2, 1]
    assert [result.n_pages(c, size=50) for c in ("codraw", "gos", "minecraft")] == [3, 1, 1]
    assert index.page(result, "gos")["text"].tolist() == ["a tree", "tree again"]
    assert index.page(result, "minecraft")["dialog_id"].tolist() == ["m"]
    assert index.page(result, "codraw", 3, size=50)["turn"].tolist() == list(range(101, 121))
    assert index.page(result, "codraw", 99, size=50)["turn"].tolist() == list(range(101, 121))  # clamped
    assert index.page(result, "codraw", 2, size=50)["turn"].iloc[0] == 51


def test_a_search_over_its_time_limit_stops_with_a_message():
    index = SearchIndex.build(_utterances("codraw", "big", ["some text to match " * 20] * 20000))
    with pytest.raises(QueryTooSlow, match="too long"):
        index.search(r"(.|e)*e(.|e){80}x", mode="regex", time_limit=0.01)


HOSTILE = [
    ("regex", r"^(?!zzz)(\w+\s?)*$"),  # catastrophic in a backtracking engine (and a look-ahead)
    ("regex", r"^(\w+\s?)*$"),
    ("regex", r"(a+)+$"),
    ("regex", r"(x+x+)+y"),
    ("regex", r"(.*a){25}"),
    ("words", "a" * 400 + "!"),
    ("words", " ".join(["aaaaaaaaaa"] * 12)),
]


@pytest.mark.parametrize("mode, query", HOSTILE)
def test_hostile_queries_answer_promptly(mode, query):
    """Run in a subprocess with a timeout, so that a regression (a backtracking engine) fails instead of hanging."""
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import sys, pandas as pd\n"
        "from data_access.search import SearchIndex, InvalidQuery\n"
        "texts = ['a' * 3000 + '!', ('word ' * 600) + '!', 'x' * 3000, 'aaaa ' * 800]\n"
        "frame = pd.DataFrame({'corpus': 'codraw', 'dialog_id': 'd', 'round': pd.array([None] * 4, dtype='Int64'),\n"
        "    'turn': [1, 2, 3, 4], 'speaker': 'A', 'role': 'Teller', 'text': texts, 'time_s': 0.0})\n"
        "index = SearchIndex.build(frame)\n"
        "for whole in (False, True):\n"
        "    try:\n"
        "        result = index.search(sys.argv[2], mode=sys.argv[1], whole_word=whole, limit=None)\n"
        "        print('ok', result.total)\n"
        "    except InvalidQuery as exc:\n"
        "        print('message', exc)\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code, mode, query], cwd=root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and all(line.startswith(("ok", "message")) for line in lines)
    if query.startswith("^(?!"):
        assert lines[0].startswith("message Look-ahead")


@pytest.mark.parametrize("query", ['""', '"   "', '"" ""'])
def test_quotes_around_nothing_ask_for_a_word_instead_of_matching_everything(index, query):
    with pytest.raises(InvalidQuery, match="Type a word"):
        index.search(query)


def test_an_apostrophe_also_finds_codraws_tokenised_form_and_the_typographic_one():
    index = SearchIndex.build(_utterances("codraw", "t", ["it 's on the left", "it's big", "it’s small", "its tail",
                                                          "it  's two spaces", "do n't", "don’t", "quote 'it' s"]))
    assert index.search("it's").hits["text"].tolist() == ["it 's on the left", "it's big", "it’s small"]
    assert index.search("don't").hits["text"].tolist() == ["do n't", "don’t"] and index.search("its").total == 1
    assert "tokenised" in compile_query("it's").description
    assert "tokenised" not in compile_query("its").description
