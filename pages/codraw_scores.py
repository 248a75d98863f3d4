"""CoDraw scores & peeks: final scores per split under both metrics, the score by round, stored vs
recomputed scores, score against dialog length, what the Teller's one peek at the drawing did and the score by
clarification request. The page is its corpus's own: the body is the ``analysis`` of the corpus whose views name this file
(``corpora/<corpus>/views/analysis.py``)."""
from ui.analysis.corpus_page import corpus_analysis_page
from ui.shell.corpus_edge import page_corpus
from ui.shell.router import ensure_routed

ensure_routed()
corpus_analysis_page(page_corpus(__file__))
