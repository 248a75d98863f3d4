"""The app: a router over the pages in ``pages/``, each with a fixed URL. ``make run`` serves it through
``server.py``; ``streamlit run app.py`` serves it as it is.

Every ``url_path`` equals its file's name: until this router has run once in a new browser session,
Streamlit resolves the URL against the files in ``pages/``, and a path that differs from the file name
would greet a deep link with a "Page not found" box (see also ``ui/shell/router.py``)."""
import streamlit as st
from streamlit.runtime.scriptrunner_utils.exceptions import RerunException, StopException

from ui.shell.auth import require_sign_in
from ui.shell.corpus_edge import skip_broken_plugins
from ui.shell.router import FAVICON, mark_routed
from ui.shell.run_mark import mark_run
from ui.shell.url_state import warn_if_link_cut

st.set_page_config(page_title="Visually grounded dialogue dashboard", page_icon=str(FAVICON), layout="wide")

PAGES = {
    "Explore": [
        st.Page("pages/overview.py", title="Overview", icon=":material/home:", url_path="overview", default=True),
        st.Page("pages/browse.py", title="Browse", icon=":material/table_rows:", url_path="browse"),
        st.Page("pages/replay.py", title="Replay", icon=":material/play_circle:", url_path="replay"),
        st.Page("pages/search.py", title="Search", icon=":material/search:", url_path="search"),
        st.Page("pages/words.py", title="Words", icon=":material/format_list_numbered:", url_path="words"),
        st.Page("pages/compare.py", title="Compare", icon=":material/compare:", url_path="compare"),
        st.Page("pages/present.py", title="Present", icon=":material/slideshow:", url_path="present"),
        st.Page("pages/play.py", title="Play", icon=":material/sports_esports:", url_path="play"),
        st.Page("pages/slices.py", title="Slices", icon=":material/filter_alt:", url_path="slices"),
    ],
    "Analyse": [
        st.Page("pages/codraw_scores.py", title="CoDraw scores & peeks", icon=":material/palette:", url_path="codraw_scores"),
        st.Page("pages/durations.py", title="Durations", icon=":material/timer:", url_path="durations"),
        st.Page("pages/gos_outcomes.py", title="Game Of Sorts outcomes", icon=":material/photo_library:", url_path="gos_outcomes"),
        st.Page("pages/minecraft_outcomes.py", title="Minecraft outcomes", icon=":material/deployed_code:", url_path="minecraft_outcomes"),
        st.Page("pages/runs.py", title="Model runs", icon=":material/smart_toy:", url_path="runs"),
    ],
    "Work": [
        st.Page("pages/notes.py", title="Notes", icon=":material/edit_note:", url_path="notes"),
        st.Page("pages/codebooks.py", title="Codebooks", icon=":material/label:", url_path="codebooks"),
        st.Page("pages/coding_queue.py", title="Coding queue", icon=":material/inbox:", url_path="coding_queue"),
        st.Page("pages/agreement.py", title="Agreement", icon=":material/handshake:", url_path="agreement"),
        st.Page("pages/data.py", title="Data", icon=":material/database:", url_path="data"),
    ],
}


try:
    require_sign_in()  # with sign-in configured, nobody reaches a page before signing in
    page = st.navigation(PAGES)
    mark_routed()
    skip_broken_plugins()  # a corpus plugin that cannot be used is in no page's list of corpora (Data says why)
    warn_if_link_cut()
    page.run()
except RerunException:  # st.rerun, st.switch_page or a newer click: another run follows this one
    mark_run(rerun=True)
    raise
except StopException:  # ui.shell.run_mark.stop_run marked the run before it stopped it (nothing reaches the browser after)
    raise
except Exception:  # an error the page shows: this run is over too
    mark_run()
    raise
mark_run()  # the run is over (ui/shell/run_mark.py)
