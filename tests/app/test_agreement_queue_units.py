"""The Agreement page can take a coding queue's items as its units: unfinished items do not count."""
from __future__ import annotations

from data_access.coding import codebook as cb
from data_access.store import CodingStore

from .conftest import open_page

BOOK = cb.Codebook("clarification", (cb.Label("CR", scope="turn"),))


def test_queue_items_are_the_units():
    store = CodingStore()
    book = store.save_codebook(BOOK)
    store.create_queue("pilot", [("codraw", "d1", None, t) for t in (1, 2, 3, 4)], ["ann", "bo"])
    for coder in ("ann", "bo"):
        store.add_annotation("codraw", "d1", codebook=book, label="CR", coder=coder, turn=1)
    store.add_annotation("codraw", "d1", codebook=book, label="CR", coder="ann", turn=2)
    for row in store.queue_items("pilot").itertuples(index=False):
        if row.turn <= 3:  # turn 4 is still to do for both
            store.set_done(int(row.id))
    at = open_page("agreement", coder="judge")
    stats = at.dataframe[0].value.set_index("label")
    assert stats.loc["(overall)", "units"] == 2  # the turns anyone labelled
    at.selectbox(key="agreement_units_turn").select("pilot").run()
    assert not at.exception
    stats = at.dataframe[0].value.set_index("label")
    assert stats.loc["(overall)", "units"] == 3  # the finished queue items, labelled or not
    assert stats.loc["(overall)", "% agreement"] == "66.7%"
    assert any("of queue “pilot”" in c.value for c in at.caption)
