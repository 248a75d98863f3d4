"""Minecraft frames on the generated demo corpus: diffs, glitch states, outcomes, bad input, Parquet
round trip, summary and the replay view model."""
from __future__ import annotations

import json
import math
import pickle

import pandas as pd
import pytest

from corpora.minecraft.data import build_frames, demo_source, summarize, write_demo
from corpora.minecraft.data.render import build_figure, snapshot_image, target_figure
from corpora.minecraft.data.view import f1_by_step, replay_step
from data_access import cache
from data_access.common import DIALOG_COLUMNS, UTTERANCE_COLUMNS, LoadedCorpus, SourceError


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    folder = tmp_path_factory.mktemp("minecraft-demo")
    write_demo(folder)
    return demo_source(folder)


@pytest.fixture(scope="module")
def frames(demo):
    return build_frames(demo, lambda *a: None)


@pytest.fixture(scope="module")
def loaded(demo, frames):
    return LoadedCorpus("minecraft", str(demo), True, frames[0], frames[1])


def dialog(frames, game_id):
    d = frames[0]["dialogs"]
    return d[d["dialog_id"] == game_id].iloc[0]


def test_the_demo_is_deterministic(tmp_path, demo):
    write_demo(tmp_path)
    for file in sorted(p for p in demo.rglob("*") if p.is_file()):
        assert (tmp_path / file.relative_to(demo)).read_bytes() == file.read_bytes()


def test_common_columns_and_splits(frames):
    f, skipped = frames
    assert skipped == []
    assert list(f["dialogs"].columns[:len(DIALOG_COLUMNS)]) == DIALOG_COLUMNS
    assert list(f["utterances"].columns) == UTTERANCE_COLUMNS
    assert set(f["dialogs"]["split"]) == {"train", "val", "test", "warmup"}
    assert not (f["utterances"]["text"] == "Mission has started.").any()


def test_state_diffs_give_placements_removals_and_turns(frames):
    f, _ = frames
    game = dialog(frames, "B1-A2-C1-1523304955000")
    assert (game["n_steps"], game["n_states"], game["placements"], game["removals"], game["final_blocks"]) == (9, 20, 8, 2, 6)
    actions = f["actions"][f["actions"]["game"] == game["dialog_id"]]
    assert list(actions.loc[actions["kind"] == "removal", "turn"]) == [3, 3]
    assert list(actions.loc[actions["kind"] == "removal", "y"]) == [2, 4]
    multi = f["actions"][f["actions"]["game"] == "B3-A4-C1-1523311200000"].groupby("state_idx").size()
    assert multi.max() == 2


def test_the_glitch_state_is_dropped(frames):
    game = dialog(frames, "B9-A10-C4-1523390000000")
    assert game["n_states"] == 13 and game["removals"] == 0 and game["outcome_match"]


def test_outcomes_after_alignment(frames):
    assert dialog(frames, "B5-A6-C2-1523318400000")["outcome_match"]  # built rotated and shifted
    assert dialog(frames, "B5-A6-C2-1523318400000")["align_rotation"] != 0
    wrong = dialog(frames, "B11-A12-C5-1523397200000")
    assert not wrong["outcome_match"] and wrong["outcome_f1"] == pytest.approx(2 * 2 / 7)


def test_bap_samples_skip_the_block_outside_the_region(frames):
    samples = frames[0]["bap_samples"]
    assert list(samples.loc[samples["game"] == "B13-A14-C6-1523404400000", "sample_id"]) == [10]
    assert (samples["split"] != "warmup").all()
    assert samples.groupby("split")["json_id"].max().to_dict() == {"test": 1, "train": 2, "val": 1}


def test_null_screenshot_times_fall_back_to_timestamps(frames):
    states = frames[0]["states"]
    assert (states["event"] == "unknown").sum() == 1
    assert states["time_s"].notna().all()


def test_frames_round_trip_through_the_parquet_cache(tmp_path, frames):
    entry = tmp_path / "entry"
    cache.write_entry(entry, frames[0], frames[1])
    back, skipped = cache.read_entry(entry)
    for name, frame in frames[0].items():
        pd.testing.assert_frame_equal(back[name], frame, check_dtype=True)


def test_summary_has_the_documented_shape(loaded):
    summary = summarize(loaded)
    json.dumps(summary)
    assert set(summary["splits"]) == {"train", "val", "test", "warmup"}
    train = summary["splits"]["train"]
    assert set(train) == {"games", "utterances", "architect_utterances", "placements", "removals", "bap_samples", "mean_seconds"}
    assert train["games"] == 3 and train["bap_samples"] == 8
    assert summary["splits"]["warmup"]["bap_samples"] == 0 and summary["skipped"] == []


def test_progress_is_reported_per_game(demo):
    calls = []
    build_frames(demo, lambda message, fraction=None: calls.append(fraction))
    assert calls[0] == 0.0 and calls[-1] == 1.0 and len(calls) >= 3


def test_a_truncated_game_is_skipped_and_named(tmp_path, demo):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(demo, copy)
    victim = copy / "logs" / "data-4-10" / "logs" / "B9-A10-C4-1523390000000" / "postprocessed-observations.json"
    victim.write_bytes(victim.read_bytes()[:500])
    f, skipped = build_frames(copy, lambda *a: None)
    assert len(f["dialogs"]) == 7
    assert [s.record for s in skipped] == ["logs/data-4-10/logs/B9-A10-C4-1523390000000/postprocessed-observations.json"]


@pytest.mark.parametrize("layout, message", [
    ("missing-splits", "splits.json"), ("empty", "no logs/"), ("no-games", "contains no games"), ("file", "is a file"),
])
def test_whole_source_faults_name_the_path(tmp_path, layout, message):
    root = tmp_path / "root"
    root.mkdir()
    if layout == "missing-splits":
        (root / "logs" / "data-4-9" / "logs").mkdir(parents=True)
    elif layout == "no-games":
        (root / "logs").mkdir()
        (root / "logs" / "splits.json").write_text("{}")
    elif layout == "file":
        root = tmp_path / "x.json"
        root.write_text("{}")
    with pytest.raises(SourceError, match=message) as error:
        build_frames(root, lambda *a: None)
    assert str(tmp_path) in str(error.value)


def test_the_augmented_format_loads(tmp_path, demo):
    """Tokenised chat, float coordinates, short type names and C<n>_<k> configs, as in data/augmented."""
    import shutil

    root = tmp_path / "aug"
    source = demo / "logs" / "data-4-9" / "logs" / "B1-A2-C1-1523304955000" / "postprocessed-observations.json"
    game = json.loads(source.read_text())
    for state in game["WorldStates"]:
        state["ChatHistoryTokenized"] = [line.lower().replace("?", " ?").split() for line in state.pop("ChatHistory")]
        for block in state["BlocksInGrid"]:
            block["AbsoluteCoordinates"] = {k: float(v) for k, v in block["AbsoluteCoordinates"].items()}
            block["Type"] = block["Type"].replace("cwc_minecraft_", "cwcmod:cwc_")
            block["PerspectiveCoordinates"] = None
    folder = root / "logs" / "data-4-9" / "logs" / "B1-A2-C1_7-1523304955000"
    folder.mkdir(parents=True)
    (folder / "postprocessed-observations.json").write_text(json.dumps(game))
    (root / "logs" / "splits.json").write_text(json.dumps({"train": ["C1_7"]}))
    (root / "gold-configurations").mkdir()
    shutil.copy(demo / "gold-configurations" / "C1.xml", root / "gold-configurations" / "C1_7.xml")
    f, skipped = build_frames(root, lambda *a: None)
    row = f["dialogs"].iloc[0]
    assert skipped == [] and row["from_aug_data"] and row["split"] == "train" and row["outcome_match"]
    assert f["utterances"]["text"].iloc[1] == "what should i do ?"
    assert set(f["bap_samples"]["orig_experiment_id"]) == {"B1-A2-C1-1523304955000"}


def test_the_replay_view_model_at_a_step(loaded):
    step = replay_step(loaded, "B1-A2-C1-1523304955000", 3)
    pickle.dumps(step)
    assert len(step.blocks) == 3 and len(step.removed) == 2 and step.placed == []
    assert step.f1 == pytest.approx(2 * 3 / 9) and len(step.gold_missing) == 3
    assert list(step.next_actions["action"]) == ["removal", "removal"] and step.bap_sample_id == 9
    assert replay_step(loaded, "B1-A2-C1-1523304955000", 1).next_actions is None
    assert replay_step(loaded, "nope", 1) is None
    curve = f1_by_step(loaded, "B1-A2-C1-1523304955000")
    assert curve["f1"].iloc[-1] == 1.0 and len(curve) == 9


def test_figures_use_one_mesh_per_colour_and_show_the_builder(loaded):
    step = replay_step(loaded, "B3-A4-C1-1523311200000", 2)
    figure = build_figure(step.blocks, step.placed, step.removed, step.builder)
    meshes = [t for t in figure.data if t.type == "mesh3d"]
    assert len(meshes) == 1 and meshes[0].color == "#2f5fd0"
    assert any(t.type == "cone" for t in figure.data)
    assert figure.layout.scene.camera.up.z == 1 and figure.layout.scene.zaxis.title.text == "y (up)"
    tower = build_figure([(0, 1, 2, "red"), (0, 2, 2, "red")])
    heights = tower.data[0].z  # the game's y is plotly's vertical z; the game's z is plotly's −y
    assert min(heights) == 0.5 and max(heights) == 2.5 and set(tower.data[0].y) == {-1.5, -2.5}
    assert tuple(figure.layout.scene.xaxis.range) == (-5.5, 5.5)
    target = target_figure(step.gold_aligned, step.gold_missing)
    assert any(t.type == "mesh3d" and t.opacity < 1 for t in target.data)
    outside = build_figure([(8, 1, 0, "red")])
    assert outside.layout.scene.xaxis.range[1] == 8.5
    image = snapshot_image(step.blocks, ghosts=step.gold_missing, highlight=step.placed, title="test")
    assert image.size[0] > 100 and len(set(image.get_flattened_data())) > 5


def test_cube_geometry_matches_a_plain_construction():
    """The vectorised meshes and edge lines equal cubes built corner by corner (in plotly's frame:
    game (x, y, z) is drawn at (x, -z, y)); edges are separated by gaps."""
    blocks = [(0, 1, 2, "red"), (-3, 4, 0, "red")]
    figure = build_figure(blocks)
    mesh, edges = figure.data[0], figure.data[1]
    corners = [(x + dx, -(z + dz), y + dy) for x, y, z, _ in blocks
               for dx in (-0.5, 0.5) for dy in (-0.5, 0.5) for dz in (-0.5, 0.5)]
    assert list(zip(mesh.x, mesh.y, mesh.z)) == corners
    assert len(mesh.i) == 12 * len(blocks) and max(mesh.i.tolist() + mesh.j.tolist() + mesh.k.tolist()) == 15
    assert len(edges.x) == 3 * 12 * len(blocks)
    gaps = [value for n, value in enumerate(edges.x) if n % 3 == 2]
    assert all(math.isnan(value) for value in gaps)  # NaN breaks the line between two edges
    first_edge = [(edges.x[n], edges.y[n], edges.z[n]) for n in (0, 1)]
    assert first_edge == [corners[0], corners[1]]
