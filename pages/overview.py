"""overview (under construction)."""
import streamlit as st

st.title("overview")
st.info("Coming soon.")
