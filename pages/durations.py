"""durations (under construction)."""
import streamlit as st

st.title("durations")
st.info("Coming soon.")
