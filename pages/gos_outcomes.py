"""A Game Of Sorts outcomes: mismatches and manual unlocks, agreement between the rankings each board
received, whether messages refer to the image ranked next, the post-game survey and the published mentions. The page is its corpus's own: the body is the ``analysis`` of the corpus whose views name this file
(``corpora/<corpus>/views/analysis.py``)."""
from ui.analysis.corpus_page import corpus_analysis_page
from ui.shell.corpus_edge import page_corpus
from ui.shell.router import ensure_routed

ensure_routed()
corpus_analysis_page(page_corpus(__file__))
