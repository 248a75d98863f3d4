"""The window of dialogs a picker lists over a large corpus: around the current one, or the first matches of
a search, always with the current dialog among them."""
from data_access.snapshots import dialog_window

CHOICES = {f"train_{i:05d}": f"train_{i:05d} · {'test' if i % 7 == 0 else 'train'} · {i % 9 + 1} rounds"
           for i in range(5000)}


def test_without_a_query_the_window_is_centred_on_the_current_dialog():
    ids, matching = dialog_window(CHOICES, "train_02500", "", 1000)
    assert len(ids) == 1000 and matching == 5000
    assert ids[0] == "train_02000" and ids[-1] == "train_02999"
    assert dialog_window(CHOICES, "train_00003", "", 1000)[0][0] == "train_00000"  # clamped at the start
    assert dialog_window(CHOICES, "train_04998", "", 1000)[0][-1] == "train_04999"  # and at the end
    assert dialog_window(CHOICES, "missing", "", 10)[0][0] == "train_00000"


def test_a_query_lists_the_first_matches_of_id_or_label_and_keeps_the_current_dialog():
    ids, matching = dialog_window(CHOICES, "train_00001", "TEST", 50)
    assert matching == len([k for k, v in CHOICES.items() if "test" in v])
    assert ids[0] == "train_00001" and len(ids) == 50  # the current dialog first (it does not match)
    assert all("test" in CHOICES[d] for d in ids[1:])
    ids, matching = dialog_window(CHOICES, "train_00001", "train_0420", 50)
    assert matching == 10 and ids == ["train_00001", *[f"train_0420{i}" for i in range(10)]]


def test_a_typed_id_names_its_dialog_among_all_and_a_typed_fragment_only_when_one_dialog_has_it():
    from data_access.snapshots import typed_dialog

    assert typed_dialog(CHOICES, " TRAIN_04321 ") == "train_04321"  # an id, any case, spaces around it
    assert typed_dialog(CHOICES, "train_0432") is None  # ten ids hold it
    assert typed_dialog(CHOICES, "04999") == "train_04999"  # in one id only
    assert typed_dialog(CHOICES, "nosuchdialog") is None and typed_dialog(CHOICES, "  ") is None
