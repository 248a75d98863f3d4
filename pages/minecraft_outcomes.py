"""minecraft_outcomes (under construction)."""
import streamlit as st

st.title("minecraft_outcomes")
st.info("Coming soon.")
