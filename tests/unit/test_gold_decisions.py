"""Gold holds exactly one decision per unit (issue 26 item 5), on both store backends: adjudicators racing on
the same unit (threads of one app, and separate processes) leave one decision, and the other is refused with
a message naming who decided and when; a decision made on a stale view is refused too, and one's own earlier
decision is replaced as before."""
from __future__ import annotations

import multiprocessing
import threading

import pytest

from data_access.coding import adjudication
from data_access.coding import codebook as cb
from data_access.links import Place
from data_access.store import NO_DECISION, CodingStore, GoldConflict, GoldUnit

BOOK = cb.Codebook("clarification", (
    cb.Label("CR", scope="turn"), cb.Label("not-CR", scope="turn"), cb.Label("hedge", scope="span"),
    cb.Label("success", scope="dialog"),
))
RACES = 15


@pytest.fixture
def store(store_target) -> CodingStore:
    return CodingStore(store_target)


def _decisions_live(store: CodingStore, turn: int) -> set[str]:
    gold = store.annotations("codraw", "d1", codebook=BOOK.name, layer="gold")
    return set(gold.loc[gold["turn"] == turn, "coder"])


def test_racing_threads_leave_exactly_one_decision_and_refuse_the_other(store):
    book = store.save_codebook(BOOK)
    for race in range(1, RACES + 1):
        barrier, outcomes = threading.Barrier(2), {}

        def judge(name: str, label: str, race=race, barrier=barrier, outcomes=outcomes) -> None:
            barrier.wait()
            try:
                adjudication.save_gold_labels(store, book, "turn", "codraw", "d1", None, race, [label], name,
                                              expected=NO_DECISION)
                outcomes[name] = "saved"
            except GoldConflict as exc:
                outcomes[name] = exc

        threads = [threading.Thread(target=judge, args=args) for args in (("ann", "CR"), ("bo", "not-CR"))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        winners = [name for name, outcome in outcomes.items() if outcome == "saved"]
        assert len(winners) == 1, outcomes
        loser = ({"ann", "bo"} - set(winners)).pop()
        refusal = outcomes[loser]
        assert refusal.current.decided_by == winners[0]
        assert f"was decided by {winners[0]} at {refusal.current.decided_at[:10]}" in str(refusal)
        assert _decisions_live(store, race) == set(winners)
        gold = store.annotations("codraw", "d1", codebook=BOOK.name, layer="gold")
        assert len(gold[gold["turn"] == race]) == 1


def _judge_many(target: str, name: str, label: str, barrier, results) -> None:
    store = CodingStore(target)
    book = store.codebook(BOOK.name)
    for race in range(1, RACES + 1):
        barrier.wait(timeout=60)
        try:
            adjudication.save_gold_labels(store, book, "turn", "codraw", "d1", None, race, [label], name)
            results.put((race, name, "saved"))
        except GoldConflict as exc:
            results.put((race, name, exc.current.decided_by))


def test_racing_processes_leave_exactly_one_decision(store_target):
    target = str(store_target)
    CodingStore(target).save_codebook(BOOK)
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["data_access.store", "psycopg"])
    barrier, results = context.Barrier(2), context.Queue()
    workers = [context.Process(target=_judge_many, args=(target, name, label, barrier, results))
               for name, label in (("ann", "CR"), ("bo", "not-CR"))]
    for worker in workers:
        worker.start()
    outcomes = [results.get(timeout=120) for _ in range(2 * RACES)]
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    store = CodingStore(target)
    for race in range(1, RACES + 1):
        saved = [name for r, name, outcome in outcomes if r == race and outcome == "saved"]
        refused_by = [outcome for r, name, outcome in outcomes if r == race and outcome != "saved"]
        assert len(saved) == 1 and refused_by == saved, (race, outcomes)
        assert _decisions_live(store, race) == set(saved)


def test_a_decision_on_a_stale_view_is_refused_and_one_on_the_current_view_replaces(store):
    book = store.save_codebook(BOOK)
    unit = GoldUnit("turn", Place("codraw", "d1", None, 3))
    assert store.gold_decision(BOOK.name, unit) is None
    first = store.decide_gold(book, unit, [{"label": "CR"}], "ann", expected=NO_DECISION)
    assert store.gold_decision(BOOK.name, unit) == first
    with pytest.raises(GoldConflict, match=r"d1 · turn 3 was decided by ann at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"):
        store.decide_gold(book, unit, [{"label": "not-CR"}], "bo", expected=NO_DECISION)
    with pytest.raises(GoldConflict):
        store.decide_gold(book, unit, [{"label": "not-CR"}], "bo")  # without a view: only one's own is replaced
    assert _decisions_live(store, 3) == {"ann"}
    second = store.decide_gold(book, unit, [{"label": "not-CR"}], "bo", expected=first)  # bo saw ann's decision
    assert store.annotations(layer="gold")["label"].tolist() == ["not-CR"]
    with pytest.raises(GoldConflict, match="decided by bo"):
        store.decide_gold(book, unit, [{"label": "CR"}], "ann", expected=first)  # ann's view is now stale
    store.decide_gold(book, unit, [], "bo", expected=second)  # clearing is a decision too
    assert store.annotations(layer="gold").empty
    assert store.gold_decision(BOOK.name, unit).decided_by == "bo"


def test_span_and_dialog_units_are_decided_once_each(store):
    book = store.save_codebook(BOOK)
    spans = GoldUnit("span", Place("codraw", "d1", None, 2), utterance=0)
    store.decide_gold(book, spans, [{"label": "hedge", "start": 0, "end": 4}], "ann", expected=NO_DECISION)
    other_utterance = GoldUnit("span", Place("codraw", "d1", None, 2), utterance=1)
    store.decide_gold(book, other_utterance, [{"label": "hedge", "start": 1, "end": 2}], "bo", expected=NO_DECISION)
    dialog = GoldUnit("dialog", Place("codraw", "d1", None, 7))  # a dialog unit has no step
    assert dialog.place == Place("codraw", "d1")
    store.decide_gold(book, dialog, [{"label": "success"}], "bo", expected=NO_DECISION)
    with pytest.raises(GoldConflict):
        store.decide_gold(book, spans, [], "bo", expected=NO_DECISION)
    with pytest.raises(ValueError, match="span label"):
        store.decide_gold(book, GoldUnit("turn", Place("codraw", "d1", None, 2)), [{"label": "hedge"}], "ann")
    assert len(store.annotations(layer="gold")) == 3


def test_gold_written_before_decisions_had_rows_counts_as_a_decision(store):
    """A store upgraded from schema 2 has gold annotations but no decision rows: they are the decision."""
    book = store.save_codebook(BOOK)
    store.add_annotation("codraw", "d1", codebook=book, label="CR", coder="ann", turn=5, layer="gold")
    unit = GoldUnit("turn", Place("codraw", "d1", None, 5))
    assert store.gold_decision(BOOK.name, unit).decided_by == "ann"
    with pytest.raises(GoldConflict, match="decided by ann"):
        store.decide_gold(book, unit, [{"label": "not-CR"}], "bo", expected=NO_DECISION)
    store.decide_gold(book, unit, [{"label": "not-CR"}], "ann")
    assert store.annotations(layer="gold")["label"].tolist() == ["not-CR"]
