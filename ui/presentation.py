"""Presentation mode for the Present page: the sidebar and Streamlit's header out of the way, the page
using the whole window, and the picture as large as the window allows (CSS only, nothing from the data)."""
import streamlit as st

CSS = """
<style>
section[data-testid="stSidebar"], div[data-testid="stSidebarCollapsedControl"], header[data-testid="stHeader"] {
  display: none !important; }
div[data-testid="stMainBlockContainer"] h1 { display: none !important; }
div[data-testid="stMainBlockContainer"], .block-container { max-width: 100% !important;
  padding: 0.75rem 1.25rem 1rem 1.25rem !important; }
div[data-testid="stImage"] img, div[data-testid="stImageContainer"] img { max-height: calc(100vh - 330px);
  width: 100% !important; object-fit: contain; }
.vgd-transcript { height: calc(100vh - 330px) !important; max-height: none !important; }
</style>
"""


def presentation_mode(on: bool) -> None:
    """Switch the page's presentation layout on (collapsed sidebar, full-width picture)."""
    if on:
        st.html(CSS)
