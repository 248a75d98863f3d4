"""Presentation mode for the Present page: the sidebar and Streamlit's header out of the way, the page
using the whole window, and the picture as large as the window allows (CSS only, nothing from the data)."""
import streamlit as st

from ui.assets import asset_text

CSS = f"<style>{asset_text('presentation.css')}</style>"


def presentation_mode(on: bool) -> None:
    """Switch the page's presentation layout on (collapsed sidebar, full-width picture)."""
    if on:
        st.html(CSS)
