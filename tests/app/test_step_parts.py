"""The Replay's parts of the step (``ui.replay.step_parts``): when the reader rests on a step, the player's settle runs
the player's fragment and the page's parts of the step alone, in the page's order, not the page. Ten sessions
stepping (`make bench-sessions`) cost the server a run of the whole Replay for each step they rested on: 0.07 CPU-s
a step against issue 47's 0.05."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest


def parts_page():
    """A page laid out as the Replay: a player fragment whose settle is a button's callback, two parts of the step
    (the section's panels and the page's tail), each counting its runs and the step it drew, and a button of the
    tail's own."""
    import streamlit as st

    from ui.replay.step_parts import section_panels_drawn, step_part
    from ui.replay.step_player import _fragment_key, _settled, report_lightly
    from ui.shell.reconnect import PAGE_RUN

    state = st.session_state
    state["page_runs"] = state.get("page_runs", 0) + 1
    state.pop(PAGE_RUN, None)  # as show_player: a run of the page follows the step reported already
    report_lightly()
    state.setdefault("step", 1)

    def player() -> None:
        state["player_runs"] = state.get("player_runs", 0) + 1
        st.button("settle", key="settle", on_click=_settled, args=("player", "step", 60))

    st.fragment(player, key=_fragment_key("player"))()

    def drawn(name: str) -> None:
        state.setdefault("order", []).append((name, state["step"]))

    if state.get("with_panels", True):
        section_panels_drawn()
        step_part("player__panels")(drawn)("panels")

    def tail() -> None:
        drawn("tail")
        if st.button("a button of the tail", key="tail_button"):
            state["tail_presses"] = state.get("tail_presses", 0) + 1

    step_part("tail")(tail)()


def runs(at: AppTest) -> tuple[int, int]:
    return at.session_state["page_runs"], at.session_state["player_runs"]


def test_a_settle_runs_the_player_and_the_parts_of_the_step_in_order_and_not_the_page():
    at = AppTest.from_function(parts_page)
    at.run()
    assert runs(at) == (1, 1)
    at.session_state["order"] = []
    at.session_state["player"] = {"settle": 7}  # what the player's settle trigger holds as its callback runs
    at.button(key="settle").click().run()
    assert not at.exception
    assert runs(at) == (1, 2)  # the player's fragment ran (it puts the step into the URL), the page did not
    assert at.session_state["order"] == [("panels", 7), ("tail", 7)]  # each part once, in the page's order
    assert at.session_state["step"] == 7


def test_a_settle_on_a_step_the_browser_lacks_asks_the_players_run_to_send_it_again():
    """A run that sent the step can be cut short by a newer one before its payload left: the browser would wait for
    the step's pictures for ever (a browser test waited 60 s). Its settle says so, and the player's run sends it."""
    at = AppTest.from_function(parts_page)
    at.run()
    at.session_state["player"] = {"settle": 7}
    at.button(key="settle").click().run()
    assert at.session_state["player__again"] is False  # the browser has the step: nothing described again
    at.session_state["player"] = {"settle": {"step": 9, "missing": True}}
    at.button(key="settle").click().run()
    assert not at.exception
    assert at.session_state["step"] == 9 and at.session_state["player__again"] is True


def test_a_widget_of_a_part_is_handled_there_and_the_page_follows():
    at = AppTest.from_function(parts_page)
    at.run()
    at.button(key="tail_button").click().run()
    assert not at.exception
    assert at.session_state["tail_presses"] == 1  # the press is handled where the button is drawn
    assert runs(at)[0] == 2  # and the page ran after it: what lies outside the part follows


def test_a_section_that_draws_its_panels_itself_has_the_page_run_at_a_settle():
    at = AppTest.from_function(parts_page)
    at.session_state["with_panels"] = False
    at.run()
    at.session_state["player"] = {"settle": 5}
    at.button(key="settle").click().run()
    assert not at.exception
    assert runs(at)[0] == 2
    assert at.session_state["step"] == 5


def labelled_page():
    """A settle and a label written in one moment: the label's callback (the coding column's ``_received``) stores it
    and its answer; the settle asks for the parts of the step alone."""
    import streamlit as st

    from ui.replay.step_parts import section_panels_drawn, step_part
    from ui.replay.step_player import _fragment_key, _settled, report_lightly
    from ui.shell.reconnect import PAGE_RUN

    state = st.session_state
    state.pop(PAGE_RUN, None)
    report_lightly()
    state.setdefault("step", 1)

    def player() -> None:
        state["player"] = {"settle": 4}
        st.button("settle", key="settle", on_click=_settled, args=("player", "step", 60))

    st.fragment(player, key=_fragment_key("player"))()

    def store_label() -> None:
        state.setdefault("stored", []).append(("CR", state["step"]))
        state["answer"] = "Saved CR"

    def column() -> None:
        st.button("CR [c]", key="label", on_click=store_label)
        if "answer" in state:
            st.markdown(state["answer"])

    st.fragment(column)()
    section_panels_drawn()
    step_part("tail")(lambda: None)()


def test_a_label_written_as_the_player_settles_is_stored_once_and_answered_in_the_same_run():
    at = AppTest.from_function(labelled_page)
    at.run()
    at.button(key="label").click()
    at.button(key="settle").click()
    at.run()
    assert not at.exception
    assert at.session_state["stored"] == [("CR", 1)] or at.session_state["stored"] == [("CR", 4)]
    assert len(at.session_state["stored"]) == 1
    assert [m.value for m in at.markdown] == ["Saved CR"]  # the column shows the answer: no run is left out
    assert at.session_state["step"] == 4
