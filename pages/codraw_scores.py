"""codraw_scores (under construction)."""
import streamlit as st

st.title("codraw_scores")
st.info("Coming soon.")
