"""The Replay with a Minecraft run at a BAP sample: the run's predicted structure and the human's as
server-drawn pictures (no WebGL scene), the interactive 3D charts only behind ``view3d=1``."""
from __future__ import annotations

from . import conftest


def _sample_step() -> dict:
    from data_access.corpora import load_path

    sample = load_path("minecraft", None).frames["bap_samples"].iloc[0]
    return {"dialog": str(sample["game"]), "turn": str(int(sample["turn"])), "sample": int(sample["sample_id"])}


def _open(**params):
    return conftest.open_page("pages/replay.py", timeout=180, corpus="minecraft", run="noisy", **params)


def test_a_minecraft_run_is_shown_as_two_pictures_without_a_3d_chart():
    step = _sample_step()
    at = _open(dialog=step["dialog"], turn=step["turn"])
    assert not at.exception
    assert not at.get("plotly_chart")  # neither the replay's scenes nor the run's
    captions = [image.proto.imgs[0].caption for image in at.get("image")]
    assert "Model (noisy): predicted structure" in captions
    assert "Human (gold) structure after the sample" in captions
    marks = next(c.value for c in at.caption if c.value.startswith(f"BAP sample {step['sample']}"))
    assert "correct" in marks and "extra" in marks and "missing" in marks


def test_the_3d_toggle_shows_the_runs_structures_as_3d_charts():
    step = _sample_step()
    at = _open(dialog=step["dialog"], turn=step["turn"], view3d="1")
    assert not at.exception
    assert len(at.get("plotly_chart")) == 4  # the build and the target, the model's structure and the gold one


def test_the_pictures_share_one_frame_and_mark_the_extra_blocks():
    """The model's and the gold picture have one size (one frame); extra blocks are outlined black."""
    import io

    from PIL import Image

    from corpora.minecraft.data.render import PLACED_MARK
    from corpora.minecraft.data.run_views import minecraft_view
    from data_access.corpora import load_path
    from data_access.runs import load_run
    from data_access.runs.demo import demo_runs

    loaded = load_path("minecraft", None)
    run = load_run(loaded, demo_runs("minecraft")["noisy"], "noisy")
    step = _sample_step()
    view = minecraft_view(loaded, run, step["dialog"], int(step["turn"]))
    model, gold = (Image.open(io.BytesIO(png)).convert("RGB") for png in (view.model_png, view.gold_png))
    assert model.size == gold.size
    if view.counts["extra"]:
        assert PLACED_MARK in {colour for _, colour in model.getcolors(1 << 16)}
