"""The one place where page state meets the URL: reading and writing query parameters, widgets seeded
from them, and links that keep working when the app is served under a path prefix. No other module touches
``st.query_params`` (``tests/unit/test_url_state_owner.py``); ``docs/url-state.md`` lists the parameters.

Streamlit round trip, in short: a widget with a ``key`` keeps its value in ``st.session_state``; a deep
link must win over that remembered value exactly once (on the run where the URL names something new),
after which the widget leads and the URL follows it. ``seed`` does this by remembering, per widget, the
URL value it was last seeded from or wrote (its *link*: ``linked``, ``remember_link``, ``is_new_link``);
``follow_url`` does the same for a filter, for which a URL without the parameter is a value too (the
filter's default).
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence
from urllib.parse import urlsplit

import pandas as pd
import streamlit as st

from data_access.links import parse_positive_int as parse_positive_int  # how pages read a step from the URL
from ui.assets import asset_text

# The script server.py puts into the page's head: only the first URL change after a click, touch or key pushes
# a browser history entry, every other one replaces the entry (ui/server/server_hint.py says why).
_HISTORY_SCRIPT = f"<script>{asset_text('history.js')}</script>"


def query_param(name: str) -> Optional[str]:
    """The URL parameter ``name``, or None when absent or empty."""
    value = st.query_params.get(name)
    return value if value not in ("", None) else None


def warn_if_link_cut() -> None:
    """Say so when the page's script cut a link Streamlit would have dropped whole (``ui/assets/query_limit.js``
    adds ``truncated=<kept>,<all>``)."""
    counts = url_list("truncated")
    if len(counts) == 2 and all(c.isascii() and c.isdigit() for c in counts):
        kept, total = (int(c) for c in counts)
        st.warning(f"The link had {total:,} parameters; only the first {kept:,} were read (Streamlit reads none of "
                   f"a link with more than 1,000).", icon=":material/link_off:")


def url_list(name: str) -> tuple[str, ...]:
    """A comma-separated URL parameter as a tuple (empty when absent)."""
    value = query_param(name)
    return tuple(v for v in value.split(",") if v) if value else ()


def set_url(**params) -> None:
    """Write values into the URL (None, empty and False values are removed) so views can be shared."""
    for name, value in params.items():
        if value is None or value is False or (isinstance(value, (str, list, tuple)) and len(value) == 0):
            if name in st.query_params:
                del st.query_params[name]
        elif isinstance(value, (list, tuple)):
            st.query_params[name] = ",".join(map(str, value))
        elif value is True:
            st.query_params[name] = "1"
        else:
            st.query_params[name] = str(value)


def one_history_entry_per_click(container=None) -> None:
    """Put the history script into the page where ``streamlit run app.py`` serves it without (``server.py``'s page
    has it already; it wraps ``history.pushState`` once per page either way). Without it Streamlit pushes an
    entry for every URL change, so a page whose runs move the URL by themselves (Present's autoplay: one step
    every few seconds) fills Back with one entry per step. No space on the page: put it last in a container."""
    (container or st).html(_HISTORY_SCRIPT, unsafe_allow_javascript=True)


def link_with(path: str, **changed: Optional[str]) -> str:
    """A served link to ``path`` (``/browse``) with this URL's parameters, ``changed`` set (None: dropped): a view's
    own links to its next page or to one value of a count."""
    from urllib.parse import urlencode

    params = {name: str(value) for name, value in st.query_params.to_dict().items()}
    for name, value in changed.items():
        if value is None:
            params.pop(name, None)
        else:
            params[name] = value
    return served(f"{path}?{urlencode(params)}")


def drop_params(*names: str) -> None:
    """Remove URL parameters (e.g. a step that belonged to another dialog)."""
    for name in names:
        if name in st.query_params:
            del st.query_params[name]


def swap_url(scope: str, leaving: Optional[str], entering: Optional[str]) -> None:
    """Keep the whole URL as it is for (``scope``, ``leaving``) in this session, then replace it by what was kept
    for (``scope``, ``entering``), or by nothing: e.g. each corpus of a page keeps its own dialog and filters."""
    kept = st.session_state.setdefault("_url_by_corpus", {})
    if leaving:
        kept[(scope, leaving)] = st.query_params.to_dict()
    st.query_params.clear()
    st.query_params.update(kept.get((scope, entering), {}))


def open_page(page: str, **params: str) -> None:
    """Switch to ``page`` (``pages/replay.py``) with exactly ``params`` in its URL."""
    st.switch_page(page, query_params=params)


def page_link(page: str, label: str, params: dict[str, str], container=None, **kwargs) -> None:
    """A link to ``page`` with exactly ``params`` in its URL: Streamlit's own page link (the same tab, the app's
    path prefix), e.g. the Runs page's "Step through these in the Replay"."""
    (container or st).page_link(page, label=label, query_params=params, **kwargs)


def _link_name(key: str) -> str:
    return f"{key}__linked"


def linked(key: str) -> Optional[str]:
    """The URL value widget ``key`` was last seeded from or wrote (None when none, or none yet)."""
    return st.session_state.get(_link_name(key))


def remember_link(key: str, value: Optional[str]) -> None:
    """Remember ``value`` as the URL value widget ``key`` was seeded from or wrote, so it is not applied again."""
    st.session_state[_link_name(key)] = value


def forget_widget(key: str) -> None:
    """Forget widget ``key``'s state and its link: the next run seeds it afresh (from the URL or a default)."""
    st.session_state.pop(key, None)
    st.session_state.pop(_link_name(key), None)


def is_new_link(key: str, requested: Optional[str]) -> bool:
    """Whether the URL value ``requested`` must be applied to widget ``key``: a value it was not seeded from, or
    the one it was when its state is gone (a widget not shown in the last run is forgotten, e.g. while another
    corpus was open: the URL is then what is left of it)."""
    return requested is not None and (linked(key) != requested or key not in st.session_state)


def seed(key: str, param: str, parse: Callable[[str], Any], default: Any = None) -> Optional[str]:
    """Put the URL's ``param`` (parsed) into widget ``key``'s state when the URL names a value the widget
    was not seeded from yet, or the widget has no state (``is_new_link``); otherwise it keeps its own value
    (``default`` on its first run).

    Returns the raw URL value that was applied on this run (None when the widget kept its value)."""
    requested = query_param(param)
    applied = None
    if requested is not None and is_new_link(key, requested):
        st.session_state[key] = parse(requested)
        remember_link(key, requested)
        applied = requested
    elif key not in st.session_state and default is not None:
        st.session_state[key] = default
    return applied


_NEVER = object()


def follow_url(key: str, param: str, parse: Callable[[str], Any], default: Any) -> None:
    """For a filter widget ``key`` kept in the URL's ``param``: its state becomes the URL's value (parsed;
    ``default`` when the URL has none) on its first run, when Streamlit forgot it, and whenever the URL says
    something else than the widget last wrote there (``publish``): Back, or a link.

    Unlike ``seed``, a URL without the parameter counts (it means ``default``): Back to the view before a filter
    was set clears it. Such a widget needs a ``key`` and no value of its own: an unkeyed widget whose value comes
    from the URL changes identity with it, and every second change the reader made was lost."""
    requested = query_param(param)
    last = st.session_state.get(_link_name(key), _NEVER)
    if key not in st.session_state or (last is not _NEVER and requested != last):
        st.session_state[key] = default if requested is None else parse(requested)
        remember_link(key, requested)


def publish(key: str, param: str, value: Any) -> None:
    """Write a widget's value to the URL and remember it, so that ``seed`` does not apply it back."""
    text = None if value is None else str(value)
    set_url(**{param: text})
    remember_link(key, text)


def url_text_input(label: str, param: str, key: str, container=None, **kwargs) -> str:
    """A text filter kept in the URL's ``param`` (absent when empty), following the URL (``follow_url``)."""
    follow_url(key, param, str, "")
    text = (container or st).text_input(label, key=key, **kwargs)
    publish(key, param, text or None)
    return text


def url_choice(kind: str, label: str, options: Sequence[str], param: str, key: str, default: str, container=None,
               **kwargs) -> str:
    """One of ``options`` (a ``selectbox`` or ``segmented_control``, as ``kind`` says) kept in the URL's ``param``
    (absent for ``default``), following the URL (``follow_url``); a value that is not among the options, from the
    URL or from before the options changed, is ``default``."""
    options = list(options)
    follow_url(key, param, str, default)
    if st.session_state[key] not in options:
        st.session_state[key] = default
    choice = getattr(container or st, kind)(label, options, key=key, **kwargs)
    choice = default if choice is None else choice  # a segmented control can be clicked off
    publish(key, param, None if choice == default else choice)
    return choice


def url_toggle(label: str, param: str, key: str, container=None, **kwargs) -> bool:
    """An on/off filter kept in the URL's ``param`` as ``1`` (absent when off), following the URL (``follow_url``)."""
    follow_url(key, param, lambda value: value == "1", False)
    on = (container or st).toggle(label, key=key, **kwargs)
    publish(key, param, "1" if on else None)
    return on


def url_filter(label: str, options: Sequence[str], param: str, format_func=str, key: Optional[str] = None,
               container=None, start_empty: bool = False) -> tuple[str, ...]:
    """A multiple-choice filter (pills: one click toggles an option) seeded from and written back to the
    URL's ``param`` (comma-separated; absent = all). Pills rather than a multiselect: a handful of options
    (corpora, splits) is read at a glance, and a first visit's page needs no dropdown code.

    Returns the chosen options in ``options`` order, all of them when nothing is chosen. ``start_empty``: with no
    choice in the URL no pill is on (which means all), so that one click keeps only the option clicked (the Words
    page's roles: one click, not one per other role)."""
    options = list(options)
    key = key or f"url_filter__{param}"
    unset = [] if start_empty else options
    follow_url(key, param, lambda text: [o for o in text.split(",") if o in options] or unset, unset)
    chosen = (container or st).pills(label, options, selection_mode="multi", key=key, format_func=format_func,
                                     help="Nothing chosen means all.")
    chosen = [o for o in options if o in (chosen or ())]
    if not chosen or len(chosen) == len(options):
        publish(key, param, None)
        return tuple(options)
    publish(key, param, ",".join(chosen))
    return tuple(chosen)


def corpus_filter(options: Sequence[str], param: str, key: Optional[str] = None, container=None) -> tuple[str, ...]:
    """The corpus filter, one control with one meaning on every page that has one (Overview, Search, Words): a pill
    per corpus (``options``, names), none on at first, which means all; a click keeps only the corpus clicked, a
    second click adds another. Kept in the URL's ``param`` (comma-separated; absent = all). Returns the corpora
    chosen, all of them when none is."""
    from data_access.common import CORPUS_TITLES

    return url_filter("Corpora", options, param, format_func=CORPUS_TITLES.get, key=key, container=container,
                      start_empty=True)


def url_tabs(labels: Sequence[str], param: str):
    """Tabs whose open one is kept in the URL's ``param`` (as its label) by Streamlit's own binding of a widget
    to the URL; returns the tabs (each knows whether it is ``open``)."""
    return st.tabs(list(labels), key=param, bind="query-params")


def base_path() -> str:
    """The path prefix the app is served under (``server.baseUrlPath``), as '' or '/prefix'."""
    prefix = str(st.get_option("server.baseUrlPath") or "").strip("/")
    return f"/{prefix}" if prefix else ""


def app_address() -> str:
    """The address the reader's browser reached this server at, with its path prefix (``https://lab.example/
    dashboard``): what goes before a link in a file that leaves the app. Outside a browser session (no URL
    known) only the prefix, as ``served`` gives."""
    try:
        url = st.context.url
    except Exception:  # noqa: BLE001 - no session context (a bare script run)
        url = None
    parts = urlsplit(url) if url else None
    if parts is None or not parts.scheme or not parts.netloc:
        return base_path()
    return f"{parts.scheme}://{parts.netloc}{base_path()}"


def served(link: str) -> str:
    """A root-relative app link (``/replay?...`` as ``data_access.links`` builds them) as the browser must
    request it: under ``server.baseUrlPath`` the prefix goes first."""
    if not isinstance(link, str) or not link.startswith("/"):
        return link
    return base_path() + link


def served_links(frame: pd.DataFrame, *columns: str) -> pd.DataFrame:
    """``frame`` with its link columns made ``served`` (a copy only when there is a prefix)."""
    prefix = base_path()
    present = [c for c in columns if c in frame.columns]
    if not prefix or not present:
        return frame
    frame = frame.copy()
    for column in present:
        frame[column] = frame[column].map(served)
    return frame
