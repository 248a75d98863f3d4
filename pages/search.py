"""Search: words or a regular expression across the utterances of every loaded corpus, shown as
keyword-in-context lines, each a link to the replay at that turn. The query lives in the URL."""
import streamlit as st

from data_access.common import CORPUS_TITLES
from data_access.search import MODES, InvalidQuery
from ui.cached import available_corpora, search_index
from ui.router import ensure_routed
from ui.widgets import download_buttons, md_escape, query_param, set_url, url_list

ensure_routed()

st.title("Search utterances")
corpora = available_corpora()
controls = st.columns([5, 2, 1, 1], vertical_alignment="bottom")
query = controls[0].text_input("Search for", value=query_param("q") or "",
                               placeholder='words (all must occur), "a phrase", or a regular expression')
mode = controls[1].segmented_control("Mode", MODES, default=query_param("mode") if query_param("mode") in MODES else "words")
case_sensitive = controls[2].toggle("Aa", value=query_param("case") == "1", help="Match case")
whole_word = controls[3].toggle("Whole words", value=query_param("whole") == "1")
chosen = st.pills("Corpora", corpora, selection_mode="multi", format_func=CORPUS_TITLES.get,
                  default=[c for c in url_list("in") if c in corpora] or corpora)
set_url(q=query, mode=None if mode == "words" else mode, case=case_sensitive, whole=whole_word,
        **{"in": None if set(chosen) == set(corpora) else chosen})

if not query.strip():
    st.caption(f"{len(search_index()):,} utterances indexed in {len(corpora)} corpora.")
    st.stop()
try:
    result = search_index().search(query, mode=mode or "words", case_sensitive=case_sensitive,
                                   whole_word=whole_word, corpora=chosen)
except InvalidQuery as exc:
    st.warning(md_escape(str(exc)))
    st.stop()

counts = st.columns(max(1, len(result.counts)))
for column, row in zip(counts, result.counts.itertuples(index=False)):
    column.metric(CORPUS_TITLES.get(row.corpus, row.corpus), f"{row.n_utterances:,}",
                  f"in {row.n_dialogs:,} dialogs", delta_color="off")
shown = f"the first {len(result.hits):,}" if result.truncated else "all"
st.caption(f"{result.total:,} matching utterances; {shown} shown as keyword in context.")
st.dataframe(
    result.hits[["corpus", "dialog_id", "round", "turn", "speaker", "left", "match", "right", "link"]],
    hide_index=True, width="stretch",
    column_config={"left": st.column_config.TextColumn("…", width="medium"),
                   "right": st.column_config.TextColumn("…", width="medium"),
                   "link": st.column_config.LinkColumn("Replay", display_text="open ▶")},
)
download_buttons(result.hits.drop(columns=["text"]), "search-results", "results")
