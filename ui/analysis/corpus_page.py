"""A corpus's own analysis page (CoDraw scores & peeks...): the page file in ``pages/`` names no corpus; it asks the
edge for the corpus whose views name it (``ui.shell.corpus_edge.page_corpus``) and draws that corpus's views'
``analysis``."""
from __future__ import annotations

from data_access.corpus import Corpus
from ui.shell.corpus_views import views_of


def corpus_analysis_page(corpus: Corpus) -> None:
    """Draw ``corpus``'s analysis page (its views' ``analysis``)."""
    analysis = views_of(corpus).analysis
    if analysis is None:
        raise LookupError(f"{corpus.title} has no analysis page")
    analysis(corpus)
