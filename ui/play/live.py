"""The Play page's live part (issue 50, docs/play.md, "Playing live"): two people play each other. Someone who may
write creates a game (the corpus, an item of it chosen or drawn at random, their role) and gets the invitation link
``/play?corpus=...&live=<token>``; the other opens it and the game starts; the creator's page opens the same link
(the store gives each player their own role back: a reload, another tab, another server resumes the game). A third
visitor is told the game is full; a viewer, or a visitor of a server open to other machines without sign-in, that
they cannot play. Before a game is created or joined the person agrees to the study's consent text
(``ui.play.consent``; an admin sets it here too). Every check is the store's (``Store.live_games``); the page only
says what it answered.

The game itself is one ``st.components.v2`` component per corpus (``ui/assets/live.js``, the shell every live game
shares, then the corpus's solo game ``CorpusViews.play`` whose drawing it reuses, then its live game
``CorpusViews.live``). The component talks to the server's live routes directly (``ui/server/live_routes.py``), so
a message or a move costs no Streamlit run; the page runs again only when the game starts or ends. A finished game
downloads as the corpus's own files (``data_access.live.export``), zipped."""
from __future__ import annotations

import io
import random
import re
import tempfile
import zipfile
from pathlib import Path
from typing import Any, Optional

import streamlit as st

from data_access import live
from data_access.access import AccessRefused, Action, Identity
from data_access.contract import live_rules_of, package_of
from data_access.corpus import Corpus
from data_access.store import LiveGame, LiveGameFull, LiveGameNotFound, Store, StoreError
from data_access.store.live_games import MAX_MESSAGE_CHARS
from ui import cached
from ui.assets import asset_text
from ui.play.consent import consent_editor, consent_given
from ui.shell import auth
from ui.shell.corpus_views import LiveView, views_of
from ui.shell.url_state import app_address, base_path, publish, query_param
from ui.store import opened
from ui.widgets import md_escape

LIVE_PARAM = "live"  # the invitation token in the page's URL
PICKER_SIZE = 200  # items the picker lists at once, around the one chosen
MAX_EXPORT_BYTES = 64 * 1024 * 1024  # a finished game's files, zipped in memory (a game holds at most 8 MB of events)
_COMPONENTS: dict[str, Any] = {}


def live_view_of(corpus: Corpus) -> Optional[LiveView]:
    """The corpus's live game when two people can play it here (live rules, a live view and the solo game it draws
    with), else None."""
    views = views_of(corpus)
    if corpus.name != corpus.package.NAME:
        return None  # a collection beside the corpus: a game is played over the released corpus's items
    if views.live is None or views.play is None or live_rules_of(corpus.package) is None:
        return None
    return views.live


def invitation_token() -> Optional[str]:
    """The invitation token the URL carries (``live=``), if any."""
    return query_param(LIVE_PARAM)


def invitation_link(corpus: Corpus, token: str) -> str:
    return f"{app_address()}/play?corpus={corpus.package.NAME}&{LIVE_PARAM}={token}"


def items_of(loaded) -> tuple[str, ...]:
    rules = live_rules_of(package_of(loaded))
    return tuple(rules.items(loaded)) if rules is not None else ()


def _player_name() -> str:
    """The name a player plays under: signed in, their own; without sign-in, the name typed (as for solo play)."""
    if auth.sign_in_configured():
        return auth.identity().coder
    return " ".join(st.text_input("Your name", key="live_player_name", value=auth.current_coder(), max_chars=80,
                                  help="Your partner sees your role, never your name; the store keeps it.").split())


# ------------------------------------------------------------------------------------------------- creating

def _create(corpus: Corpus, item: str, role: str, name: str) -> None:
    from ui.store import shared_store

    loaded = cached.corpus(corpus)
    if isinstance(loaded, cached.LoadFailure):
        st.session_state["live_said"] = ("error", loaded.message)
        return
    try:
        rules = live.rules_of(corpus.package)
        setup = rules.setup(loaded, item, random.randrange(1 << 30))
        _game, token = live.create(shared_store(), corpus.package, item, role, setup, player=name,
                                   actor=auth.identity(name))
    except (AccessRefused, StoreError, ValueError) as exc:
        st.session_state["live_said"] = ("error", str(exc))
        return
    publish("live_token", LIVE_PARAM, token)  # the creator's page opens the game through its own invitation


def _narrowed_to_slice(corpus: Corpus, items: tuple[str, ...]) -> tuple[str, ...]:
    """The items of the URL's slice (what its dialogs were played over: ``live.study_items``), said in a caption;
    all ``items`` when there is no slice or none of its items can be played live."""
    from ui.slices.current import current_outcome, said, slice_ids

    if not items or not said(current_outcome(corpus)):
        return items
    in_slice = slice_ids(corpus)
    loaded = cached.corpus(corpus)
    if in_slice is None or isinstance(loaded, cached.LoadFailure):
        return items
    try:
        chosen = set(live.study_items(corpus.package, loaded, in_slice))
    except ValueError:
        chosen = set()
    narrowed = tuple(item for item in items if item in chosen)
    st.caption(f"From the slice: its {len(in_slice):,} dialogs were played over {len(narrowed):,} items that can be "
               "played live." if narrowed else "None of the slice's dialogs can be played live; choosing among all.")
    return narrowed or items


def create_section(corpus: Corpus) -> None:
    """Creating a game: the item (chosen, or drawn at random), one's role, and the button."""
    view = live_view_of(corpus)
    st.subheader("Play with someone")
    if view is None:
        st.caption(f"{corpus.title} is not played live here.")
        return
    st.caption("Two people play each other, each in one role, each seeing only what that role saw in the original "
               "game; the game is recorded in the corpus's own files (docs/play.md, \"Playing live\").")
    said = st.session_state.pop("live_said", None)
    if said:
        st.error(md_escape(said[1]), icon=":material/block:")
    if not auth.allowed(Action.WRITE_OWN, "playing live"):
        return
    name = _player_name()
    store = opened("Playing live")
    if store is None:
        return
    person = auth.identity(name)
    if person.may(Action.MANAGE):
        with st.expander("The consent text shown before a live game (an admin's)"):
            consent_editor(store, person)
    if not consent_given(store, person, f"new-{corpus.name}"):
        return
    items = _narrowed_to_slice(corpus, cached.shared(items_of, corpus) or ())
    if not items:
        st.info(f"{corpus.title} has no item to play live.")
        return
    rules = live.rules_of(corpus.package)
    key = f"live_item_{corpus.name}"
    if st.session_state.get(key) not in items:
        st.session_state[key] = items[0]
    item_column, random_column, role_column = st.columns([3, 1, 2], vertical_alignment="bottom")
    # a window of the items around the one chosen (a selectbox sends every option at every run; CoDraw has ~10,000)
    start = max(0, items.index(st.session_state[key]) - PICKER_SIZE // 2)
    item = item_column.selectbox("Item to play", items[start:start + PICKER_SIZE], key=key,
                                 help=f"{len(items):,} items; Pick one at random draws among all of them.")
    random_column.button("Pick one at random", key=f"live_random_{corpus.name}", icon=":material/casino:",
                         on_click=lambda: st.session_state.__setitem__(key, random.choice(items)))
    role = role_column.radio("Your role", rules.ROLES, key=f"live_role_{corpus.name}", horizontal=True)
    if not name:
        st.info("Type your name to play.")
        return
    st.button("Create the game", type="primary", key=f"live_create_{corpus.name}", icon=":material/group_add:",
              on_click=_create, args=(corpus, item, role, name))


# ------------------------------------------------------------------------------------------------- playing

def _component(corpus: Corpus, view: LiveView):
    name = re.sub(r"[^a-z0-9_]", "_", corpus.name.lower())
    if name not in _COMPONENTS:
        play = views_of(corpus).play
        assert play is not None  # live_view_of asks for it
        _COMPONENTS[name] = st.components.v2.component(
            f"dialogue_live_{name}", css="\n".join([asset_text("live.css"), play.style(), view.style()]),
            js="\n".join([asset_text("live.js"), play.script(), view.script()]), isolate_styles=False)
    return _COMPONENTS[name]


def _joined(store: Store, token: str, person: Identity, name: str) -> Optional[LiveGame]:
    """The game of the invitation with this person in it, or None after saying why not."""
    try:
        return store.live_games.join(token, player=name, actor=person)
    except LiveGameFull as exc:
        st.error(f"{md_escape(exc)} Only its two players see it.", icon=":material/group_off:")
    except LiveGameNotFound as exc:
        st.error(md_escape(exc), icon=":material/link_off:")
    except AccessRefused as exc:
        st.error(f"You cannot play: {md_escape(exc)}", icon=":material/block:")
    except (StoreError, ValueError) as exc:
        st.error(f"The game cannot be opened: {md_escape(exc)}", icon=":material/error:")
    return None


def game_section(corpus: Corpus, token: str) -> None:
    """The game of the invitation ``token``: joined (or resumed), each role's screen, the export once finished."""
    st.subheader("Playing live")
    person = auth.identity(auth.current_coder())
    if not person.may(Action.WRITE_OWN):
        reason = person.read_only_reason or ("nobody is signed in" if not person.coder else
                                             f"{person.who} is a {person.role.label}")
        st.warning(f"You cannot play: a live game needs someone who may write, and {md_escape(reason)}.",
                   icon=":material/lock:")
        return
    name = _player_name()
    if not name:
        st.info("Type your name to join the game.")
        return
    person = auth.identity(name)
    store = opened("Playing live")
    if store is None:
        return
    if not consent_given(store, person, "join"):  # before the game starts (a player back has agreed already)
        return
    game = _joined(store, token, person, name)
    if game is None:
        return
    if game.corpus != corpus.name:  # (a collection's name is <corpus>@collected: the released corpus plays)
        st.info(f"This invitation is to a game of another corpus ({md_escape(game.corpus)}): choose it above.")
        return
    view = live_view_of(corpus)
    loaded = cached.corpus(corpus)
    if view is None or isinstance(loaded, cached.LoadFailure):
        st.error(f"{corpus.title} cannot be played live here.")
        return
    role = game.role_of(name)
    if game.status == "waiting":
        st.info(f"Send this invitation to your partner (they play the {md_escape(_other(game, role))}); the game "
                "starts when they open it.", icon=":material/share:")
        st.code(invitation_link(corpus, token), language=None)
    try:
        setup = store.live_games.setup_for(game.id, viewer=person)
    except StoreError as exc:
        st.error(md_escape(exc))
        return
    data = {"game_id": game.id, "role": role, "roles": list(game.roles), "status": game.status,
            "setup": setup, "draw": view.setup(corpus, loaded, game.item), "base": base_path(),
            "player": "" if auth.sign_in_configured() else name, "max_chars": MAX_MESSAGE_CHARS}
    _component(corpus, view)(data=data, key=f"live_game_{game.id}", on_status_change=lambda: None)
    if game.status == "finished":
        _export(store, corpus, game, person)


def _other(game: LiveGame, role: Optional[str]) -> str:
    return game.second_role if role == game.first_role else game.first_role


def export_zip(store: Store, corpus: Corpus, game_id: int, viewer: Identity) -> bytes:
    """The finished game written as the corpus's own files (``live.export``) into a temporary folder, zipped."""
    with tempfile.TemporaryDirectory(prefix="live-export-") as folder:
        written = Path(folder) / "collection"  # (export returns the path the reader opens: a file for CoDraw)
        live.export(store, corpus.package, [game_id], written, viewer=viewer)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(p for p in written.rglob("*") if p.is_file()):
                archive.write(path, path.relative_to(written).as_posix())
                if buffer.tell() > MAX_EXPORT_BYTES:
                    raise ValueError(f"the game's files pass {MAX_EXPORT_BYTES // (1024 * 1024)} MB zipped")
        return buffer.getvalue()


def _export(store: Store, corpus: Corpus, game: LiveGame, person: Identity) -> None:
    memo = f"live_export_{game.id}"
    if memo not in st.session_state:
        try:
            st.session_state[memo] = export_zip(store, corpus, game.id, person)
        except (StoreError, ValueError) as exc:
            st.error(f"The game cannot be written in {corpus.title}'s files: {md_escape(exc)}")
            return
    st.success("The game has ended. It is recorded in the store; download it in the corpus's own files, which the "
               "app opens with the corpus's own reader.", icon=":material/flag:")
    st.download_button("Download the game (the corpus's files, zipped)", st.session_state[memo],
                       file_name=f"live-{corpus.name}-{game.id}.zip", mime="application/zip",
                       key=f"live_export_button_{game.id}", icon=":material/download:")
