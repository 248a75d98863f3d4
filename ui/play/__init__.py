"""The Play page (issue 49, docs/play.md): a person plays one role of a recorded dialog against its recorded partner.

``page``: choosing what to play (a dialog of a split at random, of the URL's slice, or the one a link names: the
Replay's "Play this dialog"), who plays it (the signed-in identity, or the local user's name) and the play's start,
end and summary. ``component``: the game, one ``st.components.v2`` component per corpus (the shell of
``ui/assets/play.js`` around the corpus's own game, ``CorpusViews.play``) and the handling of its "Done": the
step checked and saved through ``data_access.play``, the play scored by the corpus's run scoring. ``runs``: the
finished plays written as the runs ``person:<name>`` that every run view lists. ``consent``: the consent text shown
before a live game (issue 50) with its "I agree", and the admin's part that sets it.
"""
