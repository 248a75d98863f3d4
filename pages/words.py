"""Words: frequency lists, collocations and keyness over any filtered sub-corpus, each word a click from its
concordance (sorted by context). Everything — the view, the filters, the word clicked — lives in the URL."""
import streamlit as st

from ui.shell.router import ensure_routed
from ui.shell.run_mark import stop_run
from ui.shell.url_state import url_choice, url_text_input
from ui.widgets import md_escape, query_param
from ui.words import index as ui_words
from ui.words.concordance import HitList, concordance_view, sort_widgets

ensure_routed()

VIEWS = ("Frequency", "Collocations", "Keyness")
SIZES = {"words": 1, "2-word sequences": 2, "3-word sequences": 3}
TOPS = ("50", "100", "200", "500", "1000")

st.title("Words")
st.caption("Words are runs of letters and digits, lower-cased, apostrophes inside a word kept; CoDraw's “it 's” "
           "and “do n't” are the words it's and don't, as elsewhere. The same tokenisation counts every list here, "
           "the concordances and the Overview's vocabulary.")
view = url_choice("segmented_control", "View", VIEWS, "view", key="words_view", default="Frequency")
filters = ui_words.filter_widgets("", "words", title="Sub-corpus A (filters)" if view == "Keyness" else "Filters")
word = query_param("w")


def top_widget(container) -> int:
    """How many words the list shows (``top=``), one of ``TOPS``; a link's other number is said, not ignored."""
    asked = query_param("top")
    top = int(url_choice("selectbox", "Show the top", TOPS, "top", key="words_top", default="100", container=container))
    if asked is not None and asked not in TOPS:
        st.caption(f"The link asks for the top {md_escape(asked[:20])}; the list shows the top {top} (it offers "
                   f"{', '.join(TOPS)}).")
    return top


def link(params: dict) -> str:
    return ui_words.word_link("words", params)


def base(**extra) -> dict:
    return {"view": view if view != "Frequency" else None, **ui_words.filter_params(filters), **extra}


def concordance_of(text: str, chosen, key: str, title: str, page_param: str) -> None:
    st.markdown(f"**{md_escape(title)}** · {md_escape(chosen.describe())}")
    phrase = " ".join(text.replace('"', " ").split())  # a 2- or 3-word sequence is one phrase, not words to AND
    concordance_view(HitList(f'"{phrase}"' if " " in phrase else phrase, keys, chosen), key, page_param)


if view == "Frequency":
    controls = st.columns([2, 1, 3])
    size = url_choice("segmented_control", "Count", list(SIZES), "n", key="words_n", default="words", container=controls[0])
    top = top_widget(controls[1])
    mask = ui_words.mask(filters)
    n = SIZES[size]
    found = ui_words.counts(mask, n)
    table = ui_words.frequency_table(mask, n, top, found)
    distinct = f"{int((found.counts > 0).sum()):,} distinct {'words' if n == 1 else size}"
    st.caption(md_escape(f"{found.tokens:,} words ({distinct}) in {found.n_dialogs:,} dialogs "
                         f"— {filters.describe()}. per 10k: occurrences per 10,000 words; dialogs: how many dialogs "
                         "it occurs in (dispersion). Click a word for its concordance."))
    extra = {"n": None if size == "words" else size, "top": None if top == 100 else top}
    lists, lines = st.columns([2, 3])
    with lists:
        st.html(ui_words.word_table_html(table, [link(base(**extra, w=w)) for w in table["word"]],
                                         {"per_10k": ",.1f"}, "frequency"))
        ui_words.exports(table, "word-frequencies", f"Most frequent {size} ({filters.describe()}).")
    with lines:
        keys = sort_widgets("words")
        if word:
            concordance_of(word, filters, "words_a", f"Concordance of “{word}”", "page")

elif view == "Collocations":
    controls = st.columns([3, 1, 1, 2])
    node = url_text_input("Node word or phrase", "q", key="words_q", container=controls[0], placeholder="e.g. left")
    window = int(url_choice("selectbox", "Window ±", [str(w) for w in range(1, 11)], "win", key="words_win", default="5",
                            container=controls[1]))
    minimum = int(url_choice("selectbox", "Min. together", ["1", "2", "3", "5", "10"], "min", key="words_min", default="3",
                             container=controls[2]))
    order = url_choice("segmented_control", "Sort by", list(ui_words.COLLOCATION_SORTS), "sort", key="words_sort",
                       default="log_dice", container=controls[3])
    if not node.strip():
        st.info("Type a word (or phrase) to list the words found within ±N words of it in the same message.", icon="ℹ️")
        stop_run()
    table = ui_words.collocation_table(node, ui_words.mask(filters), window, minimum, order)
    st.caption(md_escape(f"Collocates of “{node}” within ±{window} words in the same message — {filters.describe()}. "
                         "log-Dice = 14 + log2(2·f(xy) / (f(x) + f(y))); G²: log-likelihood of the window against "
                         "the rest; attracted: more often in the window than expected. Click a word for its concordance."))
    extra = {"view": "Collocations", "q": node, "win": None if window == 5 else window,
             "min": None if minimum == 3 else minimum, "sort": None if order == "log_dice" else order}
    st.html(ui_words.word_table_html(table.drop(columns=["node"]), [link({**base(), **extra, "w": w}) for w in table["word"]],
                                     {"log_dice": ".2f", "g2": ",.1f", "p": ".2g"}, "collocations"))
    ui_words.exports(table, "collocations", f"Collocates of {node} within ±{window} words ({filters.describe()}).")
    keys = sort_widgets("words")
    concordance_of(word or node, filters, "words_a", f"Concordance of “{word or node}”", "page")

else:
    other = ui_words.filter_widgets("b_", "words_b", title="Sub-corpus B (filters)")
    controls = st.columns([2, 1, 1])
    size = url_choice("segmented_control", "Count", list(SIZES), "n", key="words_n", default="words", container=controls[0])
    minimum = int(url_choice("selectbox", "Min. count (A + B)", ["1", "3", "5", "10", "20"], "min", key="words_kmin",
                             default="3", container=controls[1]))
    top = top_widget(controls[2])
    if filters == other:
        st.info("Sub-corpora A and B are the same: set different filters for them (e.g. A: role Drawer and CoDraw "
                "rounds labelled CR; B: role Drawer and not CR).", icon="ℹ️")
    mask_a, mask_b = ui_words.mask(filters), ui_words.mask(other)
    a, b = ui_words.counts(mask_a, SIZES[size]), ui_words.counts(mask_b, SIZES[size])
    table = ui_words.keyness_table(a, b, SIZES[size], minimum, top)
    st.caption(md_escape(f"A: {filters.describe()} ({a.tokens:,} words). B: {other.describe()} ({b.tokens:,} words). "
                         "G²: Dunning's log-likelihood (p from chi-square, 1 df); log ratio: log2 of A's relative "
                         "frequency over B's (+1 = twice as frequent in A). Click a word for its concordance in A and B."))
    extra = {"view": "Keyness", "n": None if size == "words" else size, "min": None if minimum == 3 else minimum,
             "top": None if top == 100 else top, **ui_words.filter_params(other, "b_")}
    st.html(ui_words.word_table_html(table, [link({**base(), **extra, "w": w}) for w in table["word"]],
                                     {"g2": ",.1f", "p": ".2g", "log_ratio": "+.2f", "per_10k_a": ",.1f",
                                      "per_10k_b": ",.1f"}, "keyness"))
    ui_words.exports(table, "keyness", f"Keyness of {size}: A ({filters.describe()}) against B ({other.describe()}).")
    if word:
        keys = sort_widgets("words")
        left, right = st.columns(2)
        with left:
            concordance_of(word, filters, "words_a", f"“{word}” in A", "page")
        with right:
            concordance_of(word, other, "words_b", f"“{word}” in B", "b_page")
