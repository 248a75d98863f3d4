"""compare (under construction)."""
import streamlit as st

st.title("compare")
st.info("Coming soon.")
