"""Agreement on the URL's slice (issue 37): the statistics and the disagreements count only the items of the
slice's dialogs; a slice the corpus cannot use is said, and its corpus's items are left out."""
from __future__ import annotations

from data_access.coding import codebook as cb
from data_access.corpora import demo_path, load_path
from data_access.store import CodingStore

from .conftest import open_page

BOOK = cb.Codebook("clarification", (cb.Label("CR", scope="turn", key="c"),))


def _seed() -> tuple[str, str]:
    """Two coders on a train and a val dialog: on the train one they agree on every turn, on the val one never."""
    dialogs = load_path("codraw", demo_path("codraw")).dialogs
    train = str(dialogs.loc[dialogs["split"] == "train", "dialog_id"].iloc[0])
    val = str(dialogs.loc[dialogs["split"] == "val", "dialog_id"].iloc[0])
    store = CodingStore()
    book = store.save_codebook(BOOK)
    for turn in (1, 2, 3):
        for coder in ("ann", "bo"):
            store.add_annotation("codraw", train, codebook=book, label="CR", coder=coder, turn=turn)
    store.add_annotation("codraw", val, codebook=book, label="CR", coder="ann", turn=1)
    store.add_annotation("codraw", val, codebook=book, label="CR", coder="bo", turn=2)
    return train, val


def test_agreement_on_a_slice_counts_only_its_dialogs():
    train, val = _seed()
    whole = open_page("pages/agreement.py", coder="judge")
    overall = whole.dataframe[0].value.set_index("label").loc["(overall)"]
    assert overall["units"] == 5 and overall["% agreement"] == "60.0%"
    assert any(h.value == "Disagreements (2)" for h in whole.subheader)

    at = open_page("pages/agreement.py", coder="judge", slice="split = train")
    assert any("CoDraw · split \\= train" in i.value for i in at.info)
    overall = at.dataframe[0].value.set_index("label").loc["(overall)"]
    assert overall["units"] == 3 and overall["% agreement"] == "100.0%"
    assert any(h.value == "Disagreements (0)" for h in at.subheader)

    at = open_page("pages/agreement.py", coder="judge", slice=f'dialog_id = "{val}"')
    overall = at.dataframe[0].value.set_index("label").loc["(overall)"]
    assert overall["units"] == 2 and overall["% agreement"] == "0.0%"


def test_agreement_with_a_slice_the_corpus_cannot_use_says_so():
    _seed()
    at = open_page("pages/agreement.py", coder="judge", slice="mentions > 0")
    assert any("cannot be used on CoDraw" in w.value for w in at.warning)
