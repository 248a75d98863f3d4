"""The chat tokenisation the BAP repo applies to ``prev_utterances`` (``utils.tokenize``), without nltk.

The repo first fixes a few chat habits token by token (``*word`` → ``* word``, ``word*`` → ``word *``,
``word..`` → ``word ..``, ``2x1`` → ``2 x 1``) and then calls ``nltk.word_tokenize``. That is Punkt sentence
splitting followed by the Treebank-style ``NLTKWordTokenizer`` on each sentence. The Treebank rules are
ported below regex for regex. Punkt is approximated: a word ending in a single "." before whitespace ends a
sentence unless it is a known abbreviation, or a number or single letter followed by a lower-case word.
Sentence splitting only matters for periods: Treebank splits off a period only at the end of a sentence.
"""
from __future__ import annotations

import re

_STARTING_QUOTES = [
    (re.compile("([«“‘„]|[`]+)"), r" \1 "),
    (re.compile(r"^\""), r"``"),
    (re.compile(r"(``)"), r" \1 "),
    (re.compile(r"([ \(\[{<])(\"|\'{2})"), r"\1 `` "),
    (re.compile(r"(?i)(\')(?!re|ve|ll|m|t|s|d|n)(\w)\b"), r"\1 \2"),
]
_ENDING_QUOTES = [
    (re.compile("([»”’])"), r" \1 "),
    (re.compile(r"''"), " '' "),
    (re.compile(r'"'), " '' "),
    (re.compile(r"([^' ])('[sS]|'[mM]|'[dD]|') "), r"\1 \2 "),
    (re.compile(r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) "), r"\1 \2 "),
]
_PUNCTUATION = [
    (re.compile(r'([^\.])(\.)([\]\)}>"\'' "»”’ " r"]*)\s*$"), r"\1 \2 \3 "),
    (re.compile(r"([:,])([^\d])"), r" \1 \2"),
    (re.compile(r"([:,])$"), r" \1 "),
    (re.compile(r"\.{2,}"), r" \g<0> "),
    (re.compile(r"[;@#$%&]"), r" \g<0> "),
    (re.compile(r'([^\.])(\.)([\]\)}>"\']*)\s*$'), r"\1 \2\3 "),
    (re.compile(r"[?!]"), r" \g<0> "),
    (re.compile(r"([^'])' "), r"\1 ' "),
    (re.compile(r"[*]"), r" \g<0> "),
]
_PARENS = (re.compile(r"[\]\[\(\)\{\}\<\>]"), r" \g<0> ")
_DOUBLE_DASHES = (re.compile(r"--"), r" -- ")
_CONTRACTIONS = [re.compile(p) for p in (
    r"(?i)\b(can)(?#X)(not)\b", r"(?i)\b(d)(?#X)('ye)\b", r"(?i)\b(gim)(?#X)(me)\b", r"(?i)\b(gon)(?#X)(na)\b",
    r"(?i)\b(got)(?#X)(ta)\b", r"(?i)\b(lem)(?#X)(me)\b", r"(?i)\b(more)(?#X)('n)\b", r"(?i)\b(wan)(?#X)(na)(?=\s)",
    r"(?i) ('t)(?#X)(is)\b", r"(?i) ('t)(?#X)(was)\b",
)]

# Abbreviations of Punkt's English model that occur in chat; a period after them does not end a sentence.
_ABBREVIATIONS = {"mr", "mrs", "ms", "dr", "st", "vs", "etc", "e.g", "i.e", "approx", "no", "jr", "sr", "u.s"}
_SENTENCE_END = re.compile(r"(?<=\S)(?<!\.\.)\.(?=\s+(\S+))")


def treebank_tokenize(text: str) -> list[str]:
    """nltk's NLTKWordTokenizer.tokenize (one sentence)."""
    for pattern, replacement in _STARTING_QUOTES:
        text = pattern.sub(replacement, text)
    for pattern, replacement in _PUNCTUATION:
        text = pattern.sub(replacement, text)
    text = _PARENS[0].sub(_PARENS[1], text)
    text = _DOUBLE_DASHES[0].sub(_DOUBLE_DASHES[1], text)
    text = " " + text + " "
    for pattern, replacement in _ENDING_QUOTES:
        text = pattern.sub(replacement, text)
    for pattern in _CONTRACTIONS:
        text = pattern.sub(r" \1 \2 ", text)
    return text.split()


def split_sentences(text: str) -> list[str]:
    """A small stand-in for Punkt: break after "word." followed by whitespace (see the module docstring)."""
    sentences, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        word = text[start:match.start()].split()[-1] if text[start:match.start()].split() else ""
        following = match.group(1)
        core = word.lower().lstrip("([{\"'")
        if core in _ABBREVIATIONS:
            continue
        if (core.isdigit() or (len(core) == 1 and core.isalpha())) and following[:1].islower():
            continue
        sentences.append(text[start:match.end()])
        start = match.end()
    sentences.append(text[start:])
    return [s.strip() for s in sentences if s.strip()]


def word_tokenize(text: str) -> list[str]:
    """nltk.word_tokenize as used by the repo (sentence split, then Treebank on each sentence)."""
    return [token for sentence in split_sentences(text) for token in treebank_tokenize(sentence)]


_AXB = re.compile(r"([\s\S]*\d+)x(\d+[\s\S]*)")


def fix_chat_tokens(utterance: str) -> str:
    """The repo's custom fixes applied to each whitespace token before nltk."""
    fixed = []
    for token in utterance.split():
        if len(token) > 1 and token[0] == "*":
            token = "* " + token[1:]
        elif len(token) > 1 and token[-1] == "*" and token[-2] != "*":
            token = token[:-1] + " *"
        if len(token) > 2 and token[-3] != "." and token[-2:] == "..":
            token = token[:-2] + " .."
        if len(token) > 2:
            match = _AXB.match(token)
            while match:
                token = match.group(1) + " x " + match.group(2)
                match = _AXB.match(token)
        fixed.append(token)
    return " ".join(fixed)


def tokenize_utterance(text: str, lower: bool = True) -> list[str]:
    """Tokens of one chat message (without its ``<Speaker>`` prefix), as in the repo's BAP samples."""
    return word_tokenize(fix_chat_tokens(text.lower() if lower else text))
