"""Overview (the home page): what the dashboard is for, and the three corpora side by side — dialogs,
messages per dialog, tokens per message and vocabulary — with links to the other pages."""
import streamlit as st

from ui.analysis import charts
from ui.analysis.charts import ordered_splits
from ui.analysis.charts import overview_figures as overview
from ui.data.provenance import demo_corpora_note
from ui.glossary import glossary_markdown, markdown_table
from ui.share.downloads import latex_table_download
from ui.shell.corpus_edge import every_corpus
from ui.shell.router import ensure_routed
from ui.shell.run_mark import stop_run
from ui.shell.url_state import corpus_filter

ensure_routed()

st.title("Visually grounded dialogue dashboard")
st.markdown(
    "Browse, replay and analyse three corpora of people talking about what they see: **CoDraw** (a Teller "
    "describes a clip-art scene that a Drawer recreates), **A Game Of Sorts** (two players agree on a ranking "
    "of nine images) and the **Minecraft Collaborative Building** corpus (an Architect instructs a Builder). "
    "The figures below are computed from the loaded data; point a corpus at your own copy on the Data page."
)

PAGE_LINKS = [
    ("pages/browse.py", "Browse dialogs", ":material/table_rows:"),
    ("pages/replay.py", "Replay a dialog", ":material/play_circle:"),
    ("pages/search.py", "Search", ":material/search:"),
    ("pages/data.py", "Data sources", ":material/database:"),
    ("pages/codraw_scores.py", "CoDraw scores & peeks", ":material/palette:"),
    ("pages/durations.py", "Durations", ":material/timer:"),
    ("pages/gos_outcomes.py", "Game Of Sorts outcomes", ":material/photo_library:"),
    ("pages/minecraft_outcomes.py", "Minecraft outcomes", ":material/deployed_code:"),
]
for row in (PAGE_LINKS[:4], PAGE_LINKS[4:]):
    for column, (page, label, icon) in zip(st.columns(4), row):
        with column:
            st.page_link(page, label=label, icon=icon)

st.header("The corpora side by side")
corpora = {corpus.name: corpus for corpus in every_corpus()}
demo_corpora_note(corpora.values())
filter_left, filter_right = st.columns(2)
with filter_left:
    chosen = corpus_filter(list(corpora), "corpora")
split_lists = {name: charts.corpus_splits(corpora[name]) for name in chosen}
loaded_names = [name for name in chosen if split_lists[name] is not None]
all_splits = ordered_splits({s for name in loaded_names for s in split_lists[name] if len(split_lists[name]) > 1})
with filter_right:
    splits = charts.split_filter(all_splits, label="Splits (corpora that have them)") if all_splits else ()
if len(splits) == len(all_splits):
    splits = ()

for name in loaded_names:  # with a slice= in the URL: each corpus's profile is the slice's, against the rest
    charts.slice_against_rest(corpora[name], "n_utterances", "Messages per dialog", splits=splits, heading=True)
profiles = [p for p in (charts.build(overview.cached_corpus_profile, corpora[name], splits) for name in loaded_names)
            if p is not None]
if not profiles:
    st.info("No corpus to show: choose at least one that loads.")
    stop_run()

table = overview.overview_table(profiles)


def corpora_view() -> None:
    st.markdown(markdown_table(table, labels={"corpus": "Corpus"}))
    st.caption(f"A message is one chat line (an utterance); a replay step is one stop of the replay. Tokens are "
               f"whitespace tokens; the vocabulary counts lower-cased word types. {sum(p.dialogs for p in profiles):,} "
               "dialogs" + (f" of the splits {', '.join(splits)}" if splits else "") + ".")
    with st.expander("What the columns mean"):
        st.markdown(glossary_markdown(table.columns))
    latex_table_download(table, "Corpus overview: dialogs, turns, tokens and vocabulary per corpus.", "overview_table")


def charts_view() -> None:
    charts.show_all(overview.overview_charts(profiles), columns=2)
    charts.show(overview.length_distribution_chart(profiles))


charts.views({"Corpora": corpora_view, "Charts": charts_view})
