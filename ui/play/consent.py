"""The consent text before a live game (issue 50; docs/play.md, "Running a study"): ``consent_given`` shows a person
the text an admin set (``store.live_consent``) with an "I agree" button, records the agreement (who, when, which
version of the text, for which game) and says whether the game may go on; ``consent_editor`` is where an admin
sets the text and sees who agreed. The store checks both writes (an admin's text, a person's own agreement), so a
page that forgot to ask cannot write either."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from data_access.access import AccessRefused, Action, Identity
from data_access.store import ConsentChanged, Store, StoreError
from data_access.store.live_consent import MAX_TEXT_CHARS
from ui.store import unavailable
from ui.widgets import md_escape

_OUTCOME = "live_consent_outcome"  # what the last "I agree" said, shown on the run it causes


def consent_given(store: Store, identity: Identity, game: str) -> bool:
    """Whether ``identity`` agreed to the current consent text; when not, the text and an "I agree" button (the
    agreement is to the version drawn, recorded before ``game``: a game's id, or what the page is about to
    create). A text changed between drawing and clicking is shown again, never agreed to unseen."""
    try:
        if identity.coder and store.live_consent.has_agreed(identity.coder):
            return True
        shown = store.live_consent.current()
    except StoreError as exc:
        unavailable("The consent text", exc)
        return False
    said = st.session_state.pop(_OUTCOME, None)
    if said:
        st.warning(md_escape(said))
    with st.container(border=True, key=f"live_consent_{game}"):
        st.markdown("**Before you play**")
        st.markdown(shown.text)  # an admin's words, markdown without HTML
        if not identity.coder:
            st.caption("Choose the name you play under (or sign in) to agree.")
            return False
        st.button("I agree", key=f"live_consent_agree_{game}", type="primary", on_click=_agree,
                  args=(store, identity, shown.version, game))
    return False


def _agree(store: Store, identity: Identity, version: int, game: str) -> None:
    """The button's callback: the agreement to the version it was drawn with, before the page runs again."""
    try:
        store.live_consent.agree(version, game, player=identity.coder, actor=identity)
    except ConsentChanged:
        st.session_state[_OUTCOME] = "The consent text changed since it was shown: read it again below."
    except AccessRefused as exc:
        st.session_state[_OUTCOME] = str(exc)
    except (StoreError, ValueError) as exc:
        st.session_state[_OUTCOME] = f"Your agreement was not recorded: {exc}"


def consent_editor(store: Store, identity: Identity, container=None) -> None:
    """An admin's part: the consent text (saved as a new version) and who agreed to which version. For anyone else,
    a line saying it is an admin's."""
    box = container or st
    if not identity.may(Action.MANAGE):
        box.caption("The consent text shown before a live game is set by an admin.")
        return
    try:
        shown = store.live_consent.current()
        agreed = store.live_consent.agreements(viewer=identity)
    except StoreError as exc:
        unavailable("The consent text", exc)
        return
    version = f"version {shown.version}, set by {shown.set_by}" if shown.version else "the app's default"
    box.caption(f"Shown before a person joins or creates a live game ({md_escape(version)}); each change is a new "
                "version, and a person agrees to each version once.")
    text = box.text_area("Consent text", shown.text, max_chars=MAX_TEXT_CHARS, height=200, key="live_consent_text")
    if box.button("Save the consent text", key="live_consent_save", disabled=text.strip() == shown.text):
        try:
            saved = store.live_consent.set_text(text, actor=identity)
        except (AccessRefused, ValueError) as exc:
            box.error(md_escape(exc))
        except StoreError as exc:
            unavailable("The consent text", exc)
        else:
            box.success(f"Saved: people are shown version {saved.version} from now on.")
    if agreed:
        box.dataframe(pd.DataFrame([vars(a) for a in agreed]), hide_index=True)
    else:
        box.caption("Nobody has agreed yet.")

