"""Play: try a recorded dialog's task yourself, one role against its recorded partner, scored exactly as the humans
and the model runs are; or play someone else live, recorded in the corpus's own files. Deep links:
/play?corpus=...&dialog=... (solo), /play?corpus=...&live=<invitation> (live; docs/play.md)."""
import streamlit as st

from ui.play.live import create_section, game_section, invitation_token
from ui.play.page import choose_dialog, game_of, play_area
from ui.shell.corpus_edge import corpus_selector
from ui.shell.router import ensure_routed

ensure_routed()

st.title("Play")
corpus = corpus_selector("play_corpus")
token = invitation_token()
if token is not None:
    game_section(corpus, token)
else:
    game = game_of(corpus)
    if game is None:
        st.info(f"{corpus.title} cannot be played here: its corpus offers no game (docs/play.md).")
    else:
        st.caption("Play one role of a recorded dialog against its recorded partner, step by step; your score stands "
                   "beside the human's at every step, and your play becomes a run (“person:<name>”) beside the "
                   "models.")
        chosen = choose_dialog(corpus)
        if chosen is not None:
            play_area(corpus, game, *chosen)
    create_section(corpus)
