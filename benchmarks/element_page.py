"""One Streamlit element kind on an otherwise blank page, chosen by ``?element=<name>`` (``blank``: only the
title), for ``element_costs.py``: what each kind of element adds to a fresh session's page load.

``?elements=<name>,<name>,…`` shows several kinds, one of each, under one title: the Streamlit elements a page
of the app is made of, alone (``page_loads.py`` finds them on the page and compares the two fresh loads);
``<name>*<n>`` shows ``n`` of a kind, and ``&click=1`` puts a Next button first (``clicks.py``: a page's
elements alone, clicked).
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


def _form(i: int = 0):
    with st.form(f"form{i}"):
        st.text_input("Label", key=f"form_label{i}")
        st.form_submit_button("Save")


def _columns():
    left, right = st.columns(2)
    left.markdown("left")
    right.markdown("right")


# Each kind drawn as its copy ``i`` (0, 1, …) of the page: widgets get a key of their own so that a page may hold
# several, and what a copy shows moves with the page's click count (``_step``), as a replay step's content does.
ELEMENTS = {
    "blank": lambda i: None,
    "markdown": lambda i: st.markdown(f"**Drawer** ({_step() + i}): put the tree on the left, a bit bigger"),
    "markdown table": lambda i: st.markdown(f"| split | dialogs |\n| :-- | --: |\n| train | {7989 + _step()} |\n| test | 1,002 |"),
    "html": lambda i: st.html(f"<p><b>a</b> paragraph {_step()}</p>"),
    "tabs": lambda i: st.tabs(["Summary", "Scores"], key=f"view{i or ''}", bind="query-params" if i == 0 else None),
    "expander": lambda i: st.expander(f"More {i}").markdown(f"text {_step()}"),
    "page link": lambda i: st.page_link("https://example.org", label=f"Browse {i}"),
    "pills": lambda i: st.pills("Splits", ["train", "val", "test"], default=["train"], selection_mode="multi",
                                key=f"pills{i}"),
    "segmented control": lambda i: st.segmented_control("Corpus", ["CoDraw", "Minecraft"], default="CoDraw",
                                                        key=f"segmented{i}"),
    "button": lambda i: st.button(f"Button {i}", key=f"button{i}"),
    "download button": lambda i: st.download_button("CSV", "x", type="tertiary", key=f"download{i}"),
    "metric": lambda i: st.metric("Final score", f"{4.17 + _step() / 100:.2f}", "+0.1"),
    "image": lambda i: st.image(_png(i), output_format="PNG" if CLICK_MODE else "auto"),
    "slider": lambda i: st.slider("Round", 1, 10, 3, key=f"slider{i}"),
    "toggle": lambda i: st.toggle("Show all", key=f"toggle{i}"),
    "text input": lambda i: st.text_input("Search for", key=f"text_input{i}"),
    "selectbox": lambda i: st.selectbox("Dialog", DIALOG_LABELS if i == 0 else ["a", "b", "c"], key=f"selectbox{i}"),
    "multiselect": lambda i: st.multiselect("Splits", ["train", "val", "test"], default=["train"], key=f"multiselect{i}"),
    "table": lambda i: st.table(_frame()),
    "dataframe": lambda i: st.dataframe(_frame(), key=f"dataframe{i}"),
    "code": lambda i: st.code("/data/codraw/CoDraw_1_0.json.gz", language=None),
    "altair chart": lambda i: _altair(),
    "plotly chart": lambda i: _plotly(),
    "replay controls": lambda i: _replay_controls(),
    "native replay controls": lambda i: _native_replay_controls(),
    "alert": lambda i: st.info(f"No corpus to show ({i})."),
    "columns": lambda i: _columns(),
    "file uploader": lambda i: st.file_uploader("A run file", key=f"file_uploader{i}"),
    "form": lambda i: _form(i),
    "number input": lambda i: st.number_input("Round", 1, 10, 3, key=f"number_input{i}"),
    "radio": lambda i: st.radio("Label", ["yes", "no"], horizontal=True, key=f"radio{i}"),
    "text area": lambda i: st.text_area("Note", key=f"text_area{i}"),
    "text": lambda i: st.text(f"plain text {_step()}"),
    "progress": lambda i: st.progress(0.5),
    "navigation": lambda i: None,  # see below: the elements as a page of an st.navigation
}


def _step() -> int:
    """How often this session clicked the page's Next button (click mode), else 0."""
    return st.session_state.get("clicks", 0)


PICTURES = 48  # distinct pictures, drawn once per process: a click shows the next ones


@st.cache_resource
def _pictures() -> list[bytes]:
    """Scene-sized PNGs (500 × 400, as a CoDraw canvas), each different, encoded once: the app caches a step's
    pictures as PNG bytes (and draws the next step's while the reader looks), so a click only sends them."""
    import io

    from PIL import Image, ImageDraw

    out = []
    for n in range(PICTURES):
        picture = Image.new("RGB", (500, 400), (235, 245, 255))
        draw = ImageDraw.Draw(picture)
        for k in range(12):
            x, y = (37 * k + 53 * n) % 460, (71 * k + 29 * n) % 360
            draw.ellipse((x, y, x + 40, y + 40), fill=((40 * k) % 255, (90 + 13 * n) % 255, (160 + 7 * n) % 255))
        encoded = io.BytesIO()
        picture.save(encoded, format="PNG")
        out.append(encoded.getvalue())
    return out


def _png(i: int = 0):
    """Copy ``i``'s picture at this click (click mode: a new one to decode at every step, as a replay step's
    pictures are; they are drawn at the page's first load, before any click is timed), else a small blank one
    (what page_loads.py has always measured)."""
    if CLICK_MODE:
        return _pictures()[(_step() * 7 + i) % PICTURES]
    from PIL import Image

    return Image.new("RGB", (200, 160), "white")


def _show(kinds: list[str]) -> None:
    for kind in kinds:
        name, _, count = kind.partition("*")
        for i in range(int(count) if count.isdigit() else 1):
            ELEMENTS[name](i)


def _known(kind: str) -> bool:
    name, _, count = kind.partition("*")
    return name in ELEMENTS and (not count or count.isdigit())


# ``?click=1``: a Next button first, which moves ``turn`` in the URL and what every element shows (the click
# benchmark's "elements alone" beside each page: its kinds, each as often as the page has it).
CLICK_MODE = st.query_params.get("click") == "1"
if "elements" in st.query_params:
    kinds = [k for k in st.query_params["elements"].split(",") if _known(k)]
    title = "Elements"
else:
    element = st.query_params.get("element", "blank")
    kinds, title = [element if element in ELEMENTS else "blank"], element


def _next() -> None:
    st.session_state["clicks"] = _step() + 1
    st.query_params["turn"] = str(_step() + 1)


def _page() -> None:
    st.title(title)
    if CLICK_MODE:
        st.button("Next ▶", key="next", on_click=_next)
        st.caption(f"{_step()} clicks")
    _show(kinds)


def _other() -> None:
    st.title("Other")


if any(k.partition("*")[0] == "navigation" for k in kinds):
    st.navigation([st.Page(_page, title="Elements", default=True), st.Page(_other, title="Other")]).run()
else:
    _page()
