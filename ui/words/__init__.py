"""Words and Search: the shared word index of every loaded corpus and the concordance view."""
