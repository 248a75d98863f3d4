"""``python -m data_access words``: one JSON object of word counts; exit 2 with one stderr line naming the file
when the source cannot be loaded; on the real corpora, the same counts as an independent plain count."""
import functools
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from data_access.corpora import demo_path

ROOT = Path(__file__).resolve().parents[2]
SHARED = {"codraw": "codraw", "gos": "game-of-sorts", "minecraft": "minecraft"}


def run_words(*args, cache):
    env = {"DIALOGUE_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "data_access", "words", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


@functools.lru_cache(maxsize=1)  # the last corpus only: the real CoDraw's 141,844 messages are not held all run
def plain_messages(corpus: str, path, cache_root) -> tuple:
    """The corpus's messages, each as (dialog, role, its words through ``tokenize``), kept for the next case: the
    real CoDraw, counted for all its speakers and then for its drawers, is read and tokenised once."""
    from data_access.corpora import load_path
    from data_access.words.tokens import tokenize

    utterances = load_path(corpus, path, cache_root=cache_root).utterances
    return tuple((dialog, role, tuple(tokenize(text)))
                 for dialog, role, text in zip(utterances["dialog_id"], utterances["role"], utterances["text"]))


def plain_counts(corpus: str, path, cache_root, role=None):
    """Independent of the index: the corpus's messages through ``tokenize`` one by one, counted in Python."""
    counts, dialogs = Counter(), {}
    for dialog, speaker_role, words in plain_messages(corpus, path, cache_root):
        if role and speaker_role != role:
            continue
        for word in words:
            counts[word] += 1
            dialogs.setdefault(word, set()).add(dialog)
    return counts, {w: len(d) for w, d in dialogs.items()}


def check(result, counts, dialogs, top):
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert set(figures) >= {"tokens", "types", "top", "skipped"}
    assert figures["tokens"] == sum(counts.values()) and figures["types"] == len(counts)
    assert len(figures["top"]) == min(top, len(counts))
    for entry in figures["top"]:
        assert entry["count"] == counts[entry["word"]] and entry["dialogs"] == dialogs[entry["word"]]
    assert [e["count"] for e in figures["top"]] == sorted((c for c in counts.values()), reverse=True)[:top]
    return figures


@pytest.mark.parametrize("name", ["codraw", "gos", "minecraft"])
def test_words_of_the_demo_corpus(tmp_path, name):
    path = demo_path(name, tmp_path)
    counts, dialogs = plain_counts(name, path, None)
    figures = check(run_words(name, path, "--top", 5, cache=tmp_path / "c"), counts, dialogs, 5)
    assert isinstance(figures["skipped"], list)


def test_words_by_role_and_split(tmp_path):
    path = demo_path("codraw", tmp_path)
    counts, dialogs = plain_counts("codraw", path, None, role="Drawer")
    check(run_words("codraw", path, "--role", "Drawer", "--top", 3, cache=tmp_path / "c"), counts, dialogs, 3)
    nothing = json.loads(run_words("codraw", path, "--split", "no-such-split", cache=tmp_path / "c").stdout)
    assert (nothing["tokens"], nothing["types"], nothing["top"]) == (0, 0, [])


@pytest.mark.parametrize("name", ["codraw", "gos", "minecraft"])
def test_unloadable_source_exits_2_with_one_line(tmp_path, name):
    missing = tmp_path / "nope.json"
    result = run_words(name, missing, cache=tmp_path / "c")
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and missing.name in lines[0] and "Traceback" not in result.stderr


@pytest.mark.shared
@pytest.mark.parametrize("name, role", [("codraw", None), ("codraw", "Drawer"), ("gos", "Player A"), ("minecraft", "Builder")])
def test_words_on_the_real_corpora_equal_a_plain_count(shared_data, real_cache, name, role):
    path = shared_data / SHARED[name]
    counts, dialogs = plain_counts(name, path, real_cache, role)
    args = (name, path, "--top", 25) + (("--role", role) if role else ())
    check(run_words(*args, cache=real_cache), counts, dialogs, 25)
