"""The nltk-free tokenizer of BAP prev_utterances (expected tokens are nltk.word_tokenize's)."""
from __future__ import annotations

import pytest

from corpora.minecraft.data.tokenize import tokenize_utterance


@pytest.mark.parametrize("text, tokens", [
    ("what should i do?", ["what", "should", "i", "do", "?"]),
    ("Mission has started.", ["mission", "has", "started", "."]),
    ("place a 2x1 block, then a 3x3x1", ["place", "a", "2", "x", "1", "block", ",", "then", "a", "3", "x", "3", "x", "1"]),
    ("don't put it there. it's wrong", ["do", "n't", "put", "it", "there", ".", "it", "'s", "wrong"]),
    ("we're done!! thanks", ["we", "'re", "done", "!", "!", "thanks"]),
    ("*done", ["*", "done"]),
    ("ok..", ["ok", ".."]),
    ("wait... what", ["wait", "...", "what"]),
    ("(the red one) \"here\"", ["(", "the", "red", "one", ")", "``", "here", "''"]),
    ("it's 5:30, i can't", ["it", "'s", "5:30", ",", "i", "ca", "n't"]),
    ("gonna need 3 more", ["gon", "na", "need", "3", "more"]),
])
def test_tokens_match_nltk_word_tokenize_on_chat(text, tokens):
    assert tokenize_utterance(text) == tokens


def test_lower_case_is_optional():
    assert tokenize_utterance("Build It", lower=False) == ["Build", "It"]
