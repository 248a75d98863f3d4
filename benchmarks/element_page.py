"""One Streamlit element kind on an otherwise blank page, chosen by ``?element=<name>`` (``blank``: only the
title), for ``element_costs.py``: what each kind of element adds to a fresh session's page load.

``?elements=<name>,<name>,…`` shows several kinds, one of each, under one title: the Streamlit elements a page
of the app is made of, alone (``page_loads.py`` finds them on the page and compares the two fresh loads).
With ``navigation`` among them the elements are a page of an ``st.navigation`` of two pages, as the app's are."""
import streamlit as st


def _plotly():
    import plotly.graph_objects as go

    st.plotly_chart(go.Figure(go.Bar(x=list("abcde"), y=[1, 2, 3, 4, 5])))


def _altair():
    import altair as alt
    import pandas as pd

    st.altair_chart(alt.Chart(pd.DataFrame({"x": list("abcde"), "y": [1, 2, 3, 4, 5]})).mark_bar().encode(x="x", y="y"))


# The Replay page's controls: the dialog picker (a window of 1,000 dialogs), previous/next and the step slider.
DIALOG_LABELS = [f"train_{i:05d} · train · {i % 9 + 2} rounds" for i in range(1000)]


def _replay_controls():
    st.selectbox("Dialog", DIALOG_LABELS)
    previous_col, slider_col, next_col = st.columns([2, 9, 2], vertical_alignment="bottom")
    previous_col.button("◀ Previous")
    next_col.button("Next ▶")
    slider_col.slider("Round", 1, 8)


# The same controls as the browser's own HTML elements in one component (Streamlit's components v2, no
# iframe): what a lighter control set could save. An experiment for docs/benchmarks.md, not used by the app.
_NATIVE_JS = """export default function (component) {
  const { parentElement, data, setStateValue } = component;
  if (parentElement.querySelector(".controls")) return;
  const root = document.createElement("div");
  root.className = "controls";
  const picker = document.createElement("select");
  for (const label of data.options) picker.appendChild(new Option(label));
  picker.onchange = () => setStateValue("dialog", picker.selectedIndex);
  const slider = Object.assign(document.createElement("input"), {type: "range", min: 1, max: 8, value: 1});
  slider.onchange = () => setStateValue("step", Number(slider.value));
  const previous = Object.assign(document.createElement("button"), {textContent: "◀ Previous"});
  const next = Object.assign(document.createElement("button"), {textContent: "Next ▶"});
  root.append(picker, previous, slider, next);
  parentElement.appendChild(root);
}"""


def _native_replay_controls():
    controls = st.components.v2.component("native_replay_controls", js=_NATIVE_JS, html="",
                                          css="select { width: 100%; } input { width: 60%; }")
    controls(data={"options": DIALOG_LABELS}, key="controls", on_dialog_change=lambda: None, on_step_change=lambda: None)


def _frame():
    import pandas as pd

    return pd.DataFrame({"split": ["train", "val", "test"], "dialogs": [7989, 1002, 1002]})


def _form():
    with st.form("form"):
        st.text_input("Label")
        st.form_submit_button("Save")


def _columns():
    left, right = st.columns(2)
    left.markdown("left")
    right.markdown("right")


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
    "replay controls": _replay_controls,
    "native replay controls": _native_replay_controls,
    "alert": lambda: st.info("No corpus to show."),
    "columns": _columns,
    "file uploader": lambda: st.file_uploader("A run file"),
    "form": _form,
    "number input": lambda: st.number_input("Round", 1, 10, 3),
    "radio": lambda: st.radio("Label", ["yes", "no"], horizontal=True),
    "text area": lambda: st.text_area("Note"),
    "text": lambda: st.text("plain text"),
    "progress": lambda: st.progress(0.5),
    "navigation": lambda: None,  # see below: the elements as a page of an st.navigation
}


def _png():
    from PIL import Image

    return Image.new("RGB", (200, 160), "white")



def _show(kinds: list[str]) -> None:
    for kind in kinds:
        ELEMENTS[kind]()


if "elements" in st.query_params:
    kinds = [k for k in st.query_params["elements"].split(",") if k in ELEMENTS]
    title = "Elements"
else:
    element = st.query_params.get("element", "blank")
    kinds, title = [element if element in ELEMENTS else "blank"], element


def _page() -> None:
    st.title(title)
    _show(kinds)


def _other() -> None:
    st.title("Other")


if "navigation" in kinds:
    st.navigation([st.Page(_page, title="Elements", default=True), st.Page(_other, title="Other")]).run()
else:
    _page()
