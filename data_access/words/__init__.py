"""Corpus linguistics over the messages of every corpus: one tokenisation (``tokens``), sub-corpora by filters
(``subcorpus``), concordances sorted by context (``concordance``), frequency lists (``frequency``),
collocations (``collocation``) and keyness (``keyness``), all pure functions of a ``TokenIndex``.
See docs/words.md for the formulas and worked examples."""
from .corpus import WordCorpus
from .subcorpus import Filters, message_facts, subcorpus_mask
from .tokens import TokenIndex, tokenize

__all__ = ["Filters", "TokenIndex", "WordCorpus", "message_facts", "subcorpus_mask", "tokenize"]
