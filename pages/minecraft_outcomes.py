"""Minecraft outcomes: Builder actions per utterance, placements vs removals, block F1 to the target over
the course of a game, and the outcome by split. The page is its corpus's own: the body is the ``analysis`` of the corpus whose views name this file
(``corpora/<corpus>/views/analysis.py``)."""
from ui.analysis.corpus_page import corpus_analysis_page
from ui.shell.corpus_edge import page_corpus
from ui.shell.router import ensure_routed

ensure_routed()
corpus_analysis_page(page_corpus(__file__))
