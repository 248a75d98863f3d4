"""``python -m data_access sql`` with the loaded runs, the published layers and the codes beside the corpus
(``--runs``, ``--layers``, ``--codes``), as the app's console has them: the tables ``runs``, ``layer_<name>``,
``codes`` and the layers' features; bad folders and stores refused in one line (exit 2)."""
from __future__ import annotations

import json
import shutil

from data_access.__main__ import main
from data_access.coding import codebook as cb
from data_access.corpora import demo_path
from data_access.layers.load import demo_layer_path
from data_access.runs.demo import demo_runs
from data_access.store import Store


def _sql(capsys, *args) -> tuple[int, dict | str]:
    status = main(["sql", *map(str, args), "--compact"])
    out, err = capsys.readouterr()
    return status, (json.loads(out) if status == 0 else err)


def test_the_cli_reads_runs_layers_and_codes(tmp_path, capsys):
    corpus = demo_path("codraw", tmp_path)
    runs = demo_runs("codraw", tmp_path)
    layers = tmp_path / "layers"
    layers.mkdir()
    shutil.copy(demo_layer_path("codraw-icr", tmp_path), layers / "icr-codraw-data.tsv")
    store_file = tmp_path / "notes.sqlite3"
    store = Store(store_file)
    book = store.coding.save_codebook(cb.Codebook("cr", (cb.Label("CR", scope="turn"),)))
    store.coding.add_annotation("codraw", "train_00019", codebook=book, label="CR", coder="ann", turn=2)

    status, result = _sql(capsys, "codraw", corpus, "SELECT run, count(*) AS n FROM runs GROUP BY run ORDER BY run",
                          "--runs", next(iter(runs.values())).parent)
    assert status == 0 and result["rows"] == [[name, 40] for name in sorted(runs)]

    status, result = _sql(capsys, "codraw", corpus, "SELECT count(*) FROM features WHERE crs > 0",
                          "--layers", layers)
    assert status == 0 and result["rows"][0][0] > 0
    status, result = _sql(capsys, "codraw", corpus, "SELECT count(*) FROM layer_codraw_icr", "--layers", layers)
    assert status == 0 and result["rows"][0][0] > 0

    status, result = _sql(capsys, "codraw", corpus, "SELECT dialog_id, label, coder FROM codes", "--codes", store_file)
    assert status == 0 and result["rows"] == [["train_00019", "CR", "ann"]]


def test_bad_folders_and_stores_are_refused_in_one_line(tmp_path, capsys):
    corpus = demo_path("codraw", tmp_path)
    for option in ("--runs", "--layers", "--codes"):
        status, error = _sql(capsys, "codraw", corpus, "SELECT 1", option, tmp_path / "missing")
        assert status == 2 and error.count("\n") == 1 and "missing" in error, error
    assert not (tmp_path / "missing").exists()  # a store that is not there is not made


def test_every_table_names_its_dialogs_dialog_id_and_steps_are_a_table(tmp_path, capsys):
    """Issue 46: the actions (and A Game Of Sorts' frames) name their dialog column dialog_id like every other table,
    the old name kept beside it; the replay steps with their features are the table step_features."""
    from data_access import slices
    from data_access.corpora import load_path

    corpus = demo_path("minecraft", tmp_path)
    status, result = _sql(capsys, "minecraft", corpus,
                          "SELECT count(*), count(*) FILTER (WHERE dialog_id = game) FROM actions")
    assert status == 0 and result["rows"][0][0] == result["rows"][0][1] > 0
    loaded = load_path("minecraft", corpus, cache_root=tmp_path)
    removals = slices.step_keys("steps(removals > 0)", slices.slice_data(loaded))
    status, result = _sql(capsys, "minecraft", corpus,
                          "SELECT dialog_id, turn FROM step_features WHERE removals > 0 ORDER BY dialog_id, turn")
    assert status == 0 and result["rows"] == sorted([d, int(t)] for d, t in zip(removals["dialog_id"], removals["turn"]))
    gos = demo_path("gos", tmp_path)
    status, result = _sql(capsys, "gos", gos, "SELECT count(*) FROM messages WHERE dialog_id = interaction_id")
    assert status == 0 and result["rows"][0][0] == len(load_path("gos", gos, cache_root=tmp_path).frames["messages"])
    status, result = _sql(capsys, "gos", gos, "SELECT count(*) FROM saved_slices")
    assert status == 0 and result["rows"] == [[0]]  # the store's are the app's (empty here)
