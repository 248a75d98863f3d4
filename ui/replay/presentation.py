"""Presentation mode for the Present page: the sidebar and Streamlit's header out of the way, the page
using the whole window, and the picture as large as the window allows (CSS only, nothing from the data); and
``play_next``, which plays a slice on like a playlist; ``presentation_asked``, presentation mode in a small window."""
from typing import Optional

import streamlit as st

from ui.assets import asset_text

CSS = f"<style>{asset_text('presentation.css')}</style>"


def presentation_mode(on: bool) -> None:
    """Switch the page's presentation layout on (collapsed sidebar, full-width picture)."""
    if on:
        st.html(CSS)


def play_next(following: Optional[str], round_: Optional[int], delta: int) -> None:
    """The player played to the end of its dialog (``delta`` 1) on a slice: ``following``, the slice's next
    dialog, at its first step and still playing. Runs as the player's callback, before the page's picker (key
    "present") reads its state."""
    if delta <= 0 or following is None:
        return
    st.session_state["present"] = following
    st.session_state[f"present_step_{following}_{round_}"] = 1
    st.session_state["present_playing"] = True


def presentation_asked(layout: str) -> None:
    """The player, in a window of 1280x720 or smaller, asks for presentation mode (Present's ``autoLayout``): its
    switch turns on before the page runs, the settings fold away and the picture takes the screen."""
    if layout == "present":
        st.session_state["present_mode"] = True
