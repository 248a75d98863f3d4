"""The app: a router over the pages in ``pages/``, each with a fixed URL. ``make run`` serves it through
``server.py``; ``streamlit run app.py`` serves it as it is.

Every ``url_path`` equals its file's name: until this router has run once in a new browser session,
Streamlit resolves the URL against the files in ``pages/``, and a path that differs from the file name
would greet a deep link with a "Page not found" box (see also ``ui/router.py``)."""
import uuid

import streamlit as st
from streamlit.runtime.scriptrunner_utils.exceptions import RerunException

from ui.auth import require_sign_in
from ui.router import FAVICON, mark_routed
from ui.url_state import warn_if_link_cut


def mark_run(rerun: bool = False) -> None:
    """Show the browser which run this is: an invisible ``<style data-app-run="S-N">``, S the session's own
    random name and N its run number, or "rerun" when another run follows at once (Streamlit puts a style-only
    ``st.html`` in its event container: no space, nothing shown). Browser tests wait for a new mark while the app
    says it is not running, instead of sleeping (tests/e2e/conftest.py). S tells a new session (a page that
    reconnected to another server) from the old one. AppTest has no browser (no request headers) and gets none."""
    if not st.context.headers:
        return
    state = st.session_state
    if not rerun:
        state["app_run"] = state.get("app_run", 0) + 1
        state.setdefault("app_session", uuid.uuid4().hex[:8])
    st.html(f'<style data-app-run="{"rerun" if rerun else f"{state.app_session}-{state.app_run}"}"></style>')


st.set_page_config(page_title="Visually grounded dialogue dashboard", page_icon=str(FAVICON), layout="wide")
mark_run()  # first, so that no st.stop (the sign-in page's, a page's) can skip the mark
require_sign_in()  # with sign-in configured, nobody reaches a page before signing in

PAGES = {
    "Explore": [
        st.Page("pages/overview.py", title="Overview", icon=":material/home:", url_path="overview", default=True),
        st.Page("pages/browse.py", title="Browse", icon=":material/table_rows:", url_path="browse"),
        st.Page("pages/replay.py", title="Replay", icon=":material/play_circle:", url_path="replay"),
        st.Page("pages/search.py", title="Search", icon=":material/search:", url_path="search"),
        st.Page("pages/words.py", title="Words", icon=":material/format_list_numbered:", url_path="words"),
        st.Page("pages/compare.py", title="Compare", icon=":material/compare:", url_path="compare"),
        st.Page("pages/present.py", title="Present", icon=":material/slideshow:", url_path="present"),
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


page = st.navigation(PAGES)
mark_routed()
warn_if_link_cut()
try:
    page.run()
except RerunException:  # st.rerun, st.switch_page or a newer click: Streamlit says "not running" in between
    mark_run(rerun=True)
    raise
