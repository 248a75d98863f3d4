"""gos_outcomes (under construction)."""
import streamlit as st

st.title("gos_outcomes")
st.info("Coming soon.")
