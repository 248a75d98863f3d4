"""The app's frame, around every page: the router and the run mark the browser tests wait on, the URL state, the
corpus edge (a corpus name made a resolved ``Corpus`` once per run) and the registry of per-corpus views, sign-in
and the writing identity, a corpus's first parse, and whether a session is still there."""
