"""One Streamlit element kind on an otherwise blank page, chosen by ``?element=<name>`` (``blank``: only the
title), for ``element_costs.py``: what each kind of element adds to a fresh session's page load."""
import streamlit as st


def _plotly():
    import plotly.graph_objects as go

    st.plotly_chart(go.Figure(go.Bar(x=list("abcde"), y=[1, 2, 3, 4, 5])))


def _altair():
    import altair as alt
    import pandas as pd

    st.altair_chart(alt.Chart(pd.DataFrame({"x": list("abcde"), "y": [1, 2, 3, 4, 5]})).mark_bar().encode(x="x", y="y"))


def _frame():
    import pandas as pd

    return pd.DataFrame({"split": ["train", "val", "test"], "dialogs": [7989, 1002, 1002]})


ELEMENTS = {
    "blank": lambda: None,
    "markdown": lambda: st.markdown("**Scores**\n- one finding (1.23)\n- another finding"),
    "markdown table": lambda: st.markdown("| split | dialogs |\n| :-- | --: |\n| train | 7,989 |\n| test | 1,002 |"),
    "html": lambda: st.html("<p><b>a</b> paragraph</p>"),
    "tabs": lambda: st.tabs(["Summary", "Scores"], key="view", bind="query-params"),
    "expander": lambda: st.expander("More").markdown("text"),
    "page link": lambda: st.page_link("https://example.org", label="Browse"),
    "pills": lambda: st.pills("Splits", ["train", "val", "test"], default=["train"], selection_mode="multi"),
    "segmented control": lambda: st.segmented_control("Corpus", ["CoDraw", "Minecraft"], default="CoDraw"),
    "button": lambda: st.button("Next"),
    "download button": lambda: st.download_button("CSV", "x", type="tertiary"),
    "metric": lambda: st.metric("Final score", "4.17", "+0.1"),
    "image": lambda: st.image(_png()),
    "slider": lambda: st.slider("Round", 1, 10, 3),
    "toggle": lambda: st.toggle("Show all"),
    "text input": lambda: st.text_input("Search for"),
    "selectbox": lambda: st.selectbox("Dialog", ["a", "b", "c"]),
    "multiselect": lambda: st.multiselect("Splits", ["train", "val", "test"], default=["train"]),
    "table": lambda: st.table(_frame()),
    "dataframe": lambda: st.dataframe(_frame()),
    "code": lambda: st.code("/data/codraw/CoDraw_1_0.json.gz", language=None),
    "altair chart": _altair,
    "plotly chart": _plotly,
}


def _png():
    from PIL import Image

    return Image.new("RGB", (200, 160), "white")


element = st.query_params.get("element", "blank")
st.title(element)
ELEMENTS.get(element, ELEMENTS["blank"])()
