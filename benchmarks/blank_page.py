"""The floor for page loads: the smallest Streamlit page (a title), served like the app."""
import streamlit as st

st.title("Blank")
