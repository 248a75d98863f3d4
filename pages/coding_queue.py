"""placeholder"""
import streamlit as st

from ui.router import ensure_routed

ensure_routed()
st.title("Coding queue")
