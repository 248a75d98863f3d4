"""Search: words or a regular expression across the utterances of every loaded corpus, shown as
keyword-in-context lines per corpus, page by page, each a link to the replay at that turn (where the match
is highlighted), filtered by speaker role, split, outcome, published layer labels and the user's own codes, and
as a concordance sorted by the words around the match. The query and every filter live in the URL."""
import dataclasses

import streamlit as st

from ui.analysis.charts import count_phrase
from ui.analysis.layers import corpus_search_extras
from ui.cached import CORPUS_TITLES, available_corpora, search, search_index, search_page
from ui.shell.router import ensure_routed
from ui.shell.run_mark import stop_run
from ui.shell.url_state import corpus_filter, served_links, url_choice, url_text_input
from ui.widgets import download_buttons, md_escape, query_param, set_url
from ui.words import index as ui_words
from ui.words.concordance import MODES, PAGE_SIZE, HitList, concordance_view, default_whole_word, sort_widgets

ensure_routed()

st.title("Search utterances")
corpora = available_corpora()
controls = st.columns([5, 2, 3], vertical_alignment="bottom")
query = url_text_input("Search for", "q", key="search_q", container=controls[0],
                       placeholder='words (all must occur), "a phrase", or a regular expression')
mode = url_choice("segmented_control", "Mode", MODES, "mode", key="search_mode", default="words", container=controls[1],
                  help="words: every word must occur, \"quoted phrases\" as written. regex: an RE2 regular expression "
                       "(no look-around or back-references; \\w, \\b are ASCII, \\pL is any letter).")
whole_default = default_whole_word(mode)
wanted = {"Match case": query_param("case") == "1",
          "Whole words": {"1": True, "0": False}.get(query_param("whole"), whole_default)}
flags = controls[2].pills("Match", list(wanted), selection_mode="multi", default=[f for f, on in wanted.items() if on],
                          key=f"search_flags_{mode}",
                          help="Match case: “Tree” is not “tree”. Whole words: “tree” does not find “street” "
                               "(off: any substring matches).") or []
case_sensitive, whole_word = "Match case" in flags, "Whole words" in flags
chosen = corpus_filter(corpora, "in", key="search_in")
filters = ui_words.optional_filter_widgets("search")
within = None if filters.is_empty() else ui_words.mask(filters)
set_url(case=case_sensitive, whole=None if whole_word == whole_default else ("1" if whole_word else "0"))

if not query.strip():
    st.caption(f"{len(search_index()):,} utterances indexed in {len(corpora)} corpora.")
    stop_run()
options = (query, mode, case_sensitive, whole_word, tuple(c for c in corpora if c in chosen))
result = search(*options, within)
if isinstance(result, str):
    st.warning(md_escape(result), icon="⚠️")
    stop_run()

counts = st.columns(max(1, len(result.counts)))
for column, row in zip(counts, result.counts.itertuples(index=False)):
    column.metric(CORPUS_TITLES.get(row.corpus, row.corpus), f"{row.n_utterances:,}",
                  f"in {count_phrase(row.n_dialogs, 'dialog')}", delta_color="off", delta_arrow="off")
st.caption(md_escape(f"{result.total:,} matching utterances for {result.query.description} ({filters.describe()}). "
                     f"Each corpus's hits are listed in its tab, {PAGE_SIZE} per page; “open ▶” replays the turn "
                     "with the match highlighted."))
tabs = [] if result.total == 0 else st.tabs([f"{CORPUS_TITLES.get(c, c)} ({n:,})" for c, n in zip(result.counts["corpus"], result.counts["n_utterances"])])
for tab, corpus in zip(tabs, result.counts["corpus"]):
    with tab:
        n_hits, n_pages = result.n_hits(corpus), result.n_pages(corpus)
        if n_hits == 0:
            st.caption("No matching utterance in this corpus.")
            continue
        page = 1
        pager, where = st.columns([1, 4], vertical_alignment="bottom")
        if n_pages > 1:
            page = int(pager.number_input(f"Page (of {n_pages:,})", 1, n_pages, 1, key=f"search_page_{corpus}_{hash(options)}"))
        where.caption(f"Hits {(page - 1) * PAGE_SIZE + 1:,}–{min(page * PAGE_SIZE, n_hits):,} of {n_hits:,}")
        hits = search_page(*options, corpus, page, PAGE_SIZE, within)
        columns = ["link", "dialog_id", "round", "turn", "speaker", "left", "match", "right"]
        st.dataframe(
            served_links(hits[[c for c in columns if c != "round" or hits["round"].notna().any()]], "link"),
            hide_index=True, width="stretch", key=f"search_hits_{corpus}",
            column_config={"left": st.column_config.TextColumn("…", width="medium"),
                           "right": st.column_config.TextColumn("…", width="medium"),
                           "link": st.column_config.LinkColumn("Replay", display_text="open ▶")},
        )

if result.total:
    st.subheader("Concordance, sorted by context")
    hit_list = HitList(query, (), filters, mode, case_sensitive, whole_word)
    st.caption("Every occurrence, aligned on the match and sorted by the words around it"
               + (" (words as the Words page counts them: lower-cased, CoDraw's “it 's” read as it's)" if hit_list.by_words
                  else " (each match widened to the words it touches)")
               + ". Click a line to replay it here with the match highlighted; the Replay then walks the list (next hit).")
    keys = sort_widgets("search")
    in_corpora = dataclasses.replace(filters, corpora=tuple(chosen)) if len(chosen) < len(corpora) else filters
    concordance_view(dataclasses.replace(hit_list, keys=keys, filters=in_corpora), "search", "lines", searched=result.total)

if result.total:
    index = search_index()  # the files are made on a click, on another thread: no Streamlit call in there
    download_buttons(lambda: index.kwic(result.query, result.rows).drop(columns=["text"]), "search-results",
                     f"all {result.total:,} hits")
corpus_search_extras(query, case_sensitive)  # a corpus's own results (published mentions)
