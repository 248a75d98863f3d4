"""The app's own shell as a page-load reference: the sidebar navigation of ``app.py`` (every page in its
section, with its title and icon) where each page is only its title. Served beside the blank page by
``page_loads.py``, it shows what the navigation itself costs a fresh session."""
import re
from pathlib import Path

import streamlit as st

st.set_page_config(page_title="Visually grounded dialogue dashboard", page_icon=":material/extension:", layout="wide")
APP = (Path(__file__).resolve().parents[1] / "app.py").read_text(encoding="utf-8")
PAGE = re.compile(r'st\.Page\("[^"]+", title="([^"]+)", icon="([^"]+)", url_path="([^"]+)"')


def title_only(title: str):
    return lambda: st.title(title)


sections = {}
for block in re.finditer(r'"(\w+)": \[(.*?)\]', APP, re.S):
    sections[block.group(1)] = [st.Page(title_only(title), title=title, icon=icon, url_path=path)
                                for title, icon, path in PAGE.findall(block.group(2))]
st.navigation(sections).run()
