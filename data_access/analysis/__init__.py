"""Statistics and figures of the analysis pages, as pure functions of the loaded corpora.

``stats`` holds the dependency-free statistics (means with confidence intervals, paired differences,
rank correlations); ``charts`` the ``Chart`` bundle (figure, data, caption) and selection helpers; the
corpus modules (``codraw``, ``gos``, ``minecraft``) and ``overview`` build one ``Chart`` per figure from
a ``LoadedCorpus`` and a tuple of splits, so that ``ui.cached.derived`` can cache each of them.
"""
