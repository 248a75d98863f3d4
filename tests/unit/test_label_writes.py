"""The coding column's writes at the store (``data_access.coding.label_ops`` over ``CodingStore.put_label`` and
``delete_written``), on both store backends: a label is stored once however often it is sent, a second press says
it is there already, a removal is its own write, a viewer's write is refused in the store, an unreachable store
keeps the write for later, and 50 labels keyed one after another are all stored once."""
from __future__ import annotations

import threading

import pandas as pd
import pytest

from data_access.access import Identity, Role
from data_access.coding import codebook as cb
from data_access.coding import label_ops, rules
from data_access.coding.label_ops import Workplace, apply_writes, parse_batch
from data_access.store import CodingStore, NotesStore, StoreUnavailable

BOOK = cb.Codebook("clarification", (
    cb.Label("CR", scope="turn", key="c"),
    cb.Label("not-CR", scope="turn", key="n"),
    cb.Label("refers-to", scope="span", key="r"),
    cb.Label("success", scope="dialog", key="s"),
))
UTTERANCES = pd.DataFrame({"speaker": ["Teller", "Drawer"], "role": ["Teller", "Drawer"], "text": ["a big tree", "ok"]})


@pytest.fixture
def coding(store_target):
    store = CodingStore(store_target)
    store.save_codebook(BOOK)
    return store


def workplace(coding: CodingStore, actor=None, coder: str = "ann", corpus: str = "codraw") -> Workplace:
    return Workplace(coding, coding.notes_store, corpus, coder, actor, coding.codebook,
                     lambda dialog, round_, turn: UTTERANCES)


def uid(number: int) -> str:
    return f"write-{number:08d}"


def put(number: int, label: str = "CR", turn: int = 2, **extra) -> dict:
    return {"uid": uid(number), "kind": "put", "dialog": "d1", "turn": turn, "codebook": "clarification",
            "label": label, **extra}


def send(coding, *writes, actor=None, noted=None) -> list:
    seq, parsed, refused = parse_batch({"seq": 1, "writes": list(writes)})
    return refused + apply_writes(workplace(coding, actor), parsed, {} if noted is None else noted)


def test_a_label_sent_twice_is_stored_once_and_a_second_press_says_it_is_there(coding):
    first, again = send(coding, put(1), put(1))  # the same write sent again (a lost answer)
    assert (first.status, again.status) == ("stored", "stored")
    second_press = send(coding, put(2))[0]
    assert second_press.status == "already" and "already labelled" in second_press.message
    assert coding.annotations()[["label", "turn", "coder"]].values.tolist() == [["CR", 2, "ann"]]


def test_a_removal_is_its_own_write_and_taking_off_twice_takes_off_once(coding):
    send(coding, put(1))
    removal = {"uid": uid(2), "kind": "remove", "dialog": "d1", "target": uid(1)}
    assert [a.status for a in send(coding, removal, removal)] == ["stored", "stored"]
    assert coding.annotations().empty
    assert send(coding, put(3))[0].status == "stored"  # put on again after it was taken off
    assert len(coding.annotations()) == 1


def test_dialog_labels_spans_and_notes(coding):
    dialog = put(1, "success", turn=4)
    span = {"uid": uid(2), "kind": "span", "dialog": "d1", "turn": 4, "codebook": "clarification", "label": "refers-to",
            "utterance": 0, "start": 2, "end": 5}
    note = {"uid": uid(3), "kind": "note", "dialog": "d1", "turn": 4, "text": "look here"}
    noted: dict = {}
    answers = send(coding, dialog, span, note, note, noted=noted)
    assert [a.status for a in answers] == ["stored"] * 4
    saved = coding.annotations().set_index("label")
    assert pd.isna(saved.loc["success", "turn"]) and saved.loc["refers-to", "span_text"] == "big"
    assert coding.notes_store.notes()["text"].tolist() == ["look here"]  # sent twice, stored once
    labels = coding.coder_labels("codraw", "d1", "clarification", "ann")
    assert [(label["label"], label["uid"]) for label in labels] == [("success", uid(1)), ("refers-to", uid(2))]


@pytest.mark.parametrize("write, reason", [
    (put(1, "no-such-label"), "no-such-label"),
    (put(1, "refers-to"), "span label"),
    ({"uid": uid(1), "kind": "span", "dialog": "d1", "turn": 2, "codebook": "clarification", "label": "refers-to",
      "utterance": 0, "start": 3, "end": 99}, "outside the utterance"),
    (put(1, turn=0), "turn must be a whole number from 1"),
    (put(1, label="x" * 600), "label must be a text"),
    ({"uid": uid(1), "kind": "drop table", "dialog": "d1", "turn": 1}, "kind must be one of"),
])
def test_a_bad_write_is_refused_with_its_reason_and_stores_nothing(coding, write, reason):
    answer = send(coding, write)[0]
    assert answer.status == "refused" and reason in answer.message
    assert coding.annotations().empty


def test_a_write_without_a_name_is_not_answered_and_a_batch_is_bounded(coding):
    too_many = [put(n, turn=n + 1) for n in range(label_ops.MAX_WRITES + 3)]
    seq, writes, refused = parse_batch({"seq": 7, "writes": [{"kind": "put"}, "junk", *too_many]})
    assert seq == 7 and len(writes) == label_ops.MAX_WRITES - 2  # the two nameless ones took places in the batch
    assert {a.status for a in refused} == {"retry"} and len(refused) == 5
    assert parse_batch(None) == (0, [], []) and parse_batch({"seq": True, "writes": "x"}) == (0, [], [])


def test_a_viewers_label_is_refused_in_the_store(store_target):
    coding = CodingStore(store_target, sign_in=True)
    admin = Identity("root", Role.ADMIN, signed_in=True)
    coding.save_codebook(BOOK, actor=admin)
    viewer = Identity("vic", Role.VIEWER, email="vic@lab.example", signed_in=True)
    place = Workplace(coding, coding.notes_store, "codraw", "vic", viewer, coding.codebook, lambda *a: UTTERANCES)
    seq, writes, _ = parse_batch({"seq": 1, "writes": [put(1), {"uid": uid(2), "kind": "note", "dialog": "d1",
                                                                 "turn": 2, "text": "x"}]})
    answers = apply_writes(place, writes, {})
    assert [a.status for a in answers] == ["refused", "refused"]
    assert all("Not allowed" in a.message and "viewer" in a.message for a in answers)
    assert coding.annotations().empty and coding.notes_store.notes().empty


def test_a_write_answered_already_in_the_session_is_not_applied_again(coding):
    """A batch carries every write not yet answered in the browser: one answered in a run that did not draw the
    column comes again, and keeps its answer; one answered ``retry`` is applied again."""
    first = send(coding, put(1))
    assert [a.status for a in first] == ["stored"]
    answered = {first[0].uid: {"status": "stored", "message": first[0].message}, uid(2): {"status": "retry"}}
    _, parsed, _ = parse_batch({"seq": 2, "writes": [put(1), put(2, turn=3), put(3, turn=4)]})
    assert [w.uid for w in label_ops.not_answered(parsed, answered)] == [uid(2), uid(3)]
    assert [w.uid for w in label_ops.not_answered(parsed, {uid(1): "not an answer"})] == [uid(1), uid(2), uid(3)]


def test_a_store_that_cannot_be_reached_keeps_the_write_for_later(coding, monkeypatch):
    def down(*args, **kwargs):
        raise StoreUnavailable("the server is down")

    monkeypatch.setattr(coding, "put_label", down)
    answer = send(coding, put(1))[0]
    assert answer.status == "retry" and "sent again" in answer.message


def test_fifty_labels_keyed_one_after_another_are_all_stored_once(coding):
    """As the browser sends them: each batch every write not yet answered, batches overlapping (a run cut short by
    the next one), some sent three times; two writers at once (two tabs) for the same labels."""
    writes = [put(n, "CR" if n % 2 else "not-CR", turn=n // 2 + 1) for n in range(50)]
    batches = [writes[max(0, end - 7):end] for end in range(1, 51)] + [writes]
    threads = [threading.Thread(target=lambda part=part: [send(coding, *batch) for batch in part])
               for part in (batches[::2], batches[1::2])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    saved = coding.annotations()
    assert len(saved) == 50
    assert sorted(zip(saved["turn"], saved["label"])) == sorted((n // 2 + 1, "CR" if n % 2 else "not-CR") for n in range(50))


def test_put_label_is_once_per_place_under_two_writers(coding):
    context = rules.CodingContext("gos", "g1", 2, 5, "ann", coding.codebook("clarification"), True)
    results: list = []

    def press(number: int) -> None:
        try:
            results.append(rules.put_label(coding, context, "CR", uid=uid(number)).message)
        except rules.AlreadyLabelled as exc:
            results.append(str(exc))

    threads = [threading.Thread(target=press, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["CR is already labelled here"] * 5 + ["Saved CR."]
    assert len(coding.annotations()) == 1
    assert isinstance(coding.notes_store, NotesStore)
