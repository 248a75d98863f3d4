"""The floor for clicks: the smallest Streamlit page with one button (a title, the button, what it counted),
served like the app. A click on it is a bare Streamlit rerun."""
import streamlit as st

st.title("Blank")
if st.button("Next ▶"):
    st.session_state["clicks"] = st.session_state.get("clicks", 0) + 1
st.caption(f"{st.session_state.get('clicks', 0)} clicks")
