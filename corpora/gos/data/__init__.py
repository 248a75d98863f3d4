"""A Game Of Sorts (LREC 2022): two players rank nine images per round by locking the same image.

Implements ``data_access.contract.CorpusPackage`` (and the optional ``same_board_plays`` and ``round_outcomes``). Also exported for the pages: the replay
view model (``replay_step``, ``round_steps``, ``dialog_labels``), the board renderer (``render_board``)
and the ranking-agreement measures (``ranking_agreement``, ``pairwise_agreement``, ``board_agreement``, ``rank_sums``).
"""
from pathlib import Path

from corpora.gos.data.agreement import board_agreement, pairwise_agreement, rank_sums, ranking_agreement
from corpora.gos.data.demo import demo_source, write_demo
from corpora.gos.data.frames import build_frames
from corpora.gos.data.ranking import LockEvent, replay_locks
from corpora.gos.data.render import render_board
from corpora.gos.data.summary import summarize
from corpora.gos.data.view import ReplayStep, dialog_labels, replay_step, round_steps, same_board_plays, snapshot, step_count
from dialogue_dashboard.plugin import FeatureText, Provenance, ReferentPlane

NAME = "gos"
TITLE = "A Game Of Sorts"
SHORT_TITLE = "Game Of Sorts"
DEMO_VERSION = 1
REPLAY_IN_ROUNDS = True  # each of the four rounds is replayed on its own; links carry round=
STEP_UNIT = "step"
EXPORT_STEP_UNIT = "step"
FRAMES = ("games", "boards", "images", "dialogs", "rounds", "messages", "lock_events", "ranks", "layouts", "survey",
          "steps", "utterances")
BROWSE_COLUMNS = {
    "game_id": "The board set (game) the pair played",
    "category": "The images' category",
    "players": "The two players' user names",
    "mismatches": "Locks that met a different image of the partner's (both locks released)",
    "manual_unlocks": "Locks a player released by hand",
}
DATA_VARIABLE = "GAME_OF_SORTS_DATA"
ASSET_KIND = "images"  # its images' flag: `dialogue-dashboard serve --gos-images`
ASSET_VARIABLE = "GAME_OF_SORTS_IMAGES"
EXPORT_BUDGET = 2_000_000  # one round's HTML replay
LAYERS = ("gos-mentions",)
REFERENT_PLANE = ReferentPlane(x_range=(-0.6, 2.6), y_range=(2.6, -0.6), show_names=True)  # the 3 x 3 board
FEATURE_TEXTS = {
    "mentions": FeatureText("mentions", "has a mention", "no mention",
                            help="referring expressions of the published mentions layer"),
    "mismatches": FeatureText("mismatched locks", "has a mismatched lock", "no mismatched lock"),
    # the step features (``steps.step_features``; the layer's ``mentions`` at a step)
    "kind": FeatureText("kind of step"),
    "message": FeatureText("message", "a message", "not a message"),
    "lock": FeatureText("lock", "a lock", "not a lock"),
    "images_referred": FeatureText("images referred to"),
    "mismatch": FeatureText("mismatched lock", "a mismatched lock", "no mismatched lock"),
    "rank": FeatureText("rank given"),
    "ranks_so_far": FeatureText("images ranked so far"),
    "board": FeatureText("board"),
    "board_number": FeatureText("board number"),
    "in_round": FeatureText("in the round", "before the round's last rank", "after the round's last rank"),
}
# What a contrast pairs by where the same item was played more than once (contract.OptionalCapabilities): an
# interaction's game (its nine images, three interactions each), a step's board (three plays each).
PAIRED_ITEMS = {"dialog": ("game_id", "game"), "step": ("board", "board")}
# The frames an analysis page on a step slice cuts to its moments (contract.OptionalCapabilities).
STEP_FRAMES = {"steps": ("interaction_id", "round", "step"), "messages": ("interaction_id", "round", "step"),
               "lock_events": ("interaction_id", "round", "step"), "utterances": ("dialog_id", "round", "turn")}
PROVENANCE = Provenance(
    obtain=("The six `a-game-of-sorts_*.jsonl` files in `dataset/data` of the "
            "[willemsenbram/a-game-of-sorts](https://github.com/willemsenbram/a-game-of-sorts) repository. "
            "Set `GAME_OF_SORTS_DATA` to that folder."),
    assets=("The 45 images are not in the release: its `dataset/get_images.sh` downloads them from their sources "
            "(Stanford Dogs, Open Images, WikiArt) as `<image_id>.jpg`. Set `GAME_OF_SORTS_IMAGES` to the folder it "
            "fills; without it every tile is a labelled placeholder."),
    licence="MIT (see the release's LICENSE); the images keep their sources' terms",
    citations=(
        """@inproceedings{willemsen-kalpakchi-skantze:2022:LREC,
  author = {Willemsen, Bram and Kalpakchi, Dmytro and Skantze, Gabriel},
  title = {Collecting Visually-Grounded Dialogue with A Game Of Sorts},
  booktitle = {Proceedings of the Language Resources and Evaluation Conference},
  year = {2022},
  address = {Marseille, France},
  publisher = {European Language Resources Association},
  pages = {2257--2268},
  url = {https://aclanthology.org/2022.lrec-1.242}
}""",
    ),
)


def source_root(path: Path) -> Path:
    """The folder of the JSON Lines files (a path to one of them means its folder)."""
    from corpora.gos.data.reader import data_folder

    return data_folder(path)


def referents(loaded, dialog_id: str, round, turn):
    """What a span can refer to at this place; see ``corpora.gos.data.referent_points``."""
    from corpora.gos.data.referent_points import referents as find

    return find(loaded, dialog_id, round, turn)


def referent_background(loaded, dialog_id: str, round, turn):
    from corpora.gos.data.referent_points import referent_background as picture

    return picture(loaded, dialog_id, round, turn)


def round_outcomes(loaded):
    """Each played round's mismatched locks (contract.OptionalCapabilities.round_outcomes)."""
    rounds = loaded.frames["rounds"]
    return rounds[["interaction_id", "round", "mismatches"]].rename(columns={"interaction_id": "dialog_id"})


def step_features(loaded):
    """One row per replay step (a message or a lock event within its round); see ``corpora.gos.data.steps``."""
    from corpora.gos.data.steps import step_features as features

    return features(loaded)


def annotation_layer(name: str):
    """The module of the corpus's published layer ``name`` (``contract.AnnotationLayer``): the mentions
    (``mentions_layer``), imported when first asked for."""
    from corpora.gos.data import mentions_layer

    if name != mentions_layer.LAYER:
        raise ValueError(f"{TITLE} has no layer {name!r}; its layers: {', '.join(LAYERS)}")
    return mentions_layer


def run_scoring():
    """Reference-resolution runs, scored per message, and rankings, scored per round; see
    ``corpora.gos.data.scoring``."""
    from corpora.gos.data import scoring

    return scoring


def play_rules():
    """Playing one player of a recorded interaction, a rank a step; see ``corpora.gos.data.play``."""
    from corpora.gos.data import play

    return play


def live_rules():
    """Two people playing A Game Of Sorts live, and their games written as its log files; see
    ``corpora.gos.data.live``."""
    from corpora.gos.data import live

    return live


__all__ = [
    "NAME", "TITLE", "SHORT_TITLE", "DEMO_VERSION", "REPLAY_IN_ROUNDS", "STEP_UNIT", "EXPORT_STEP_UNIT", "FRAMES",
    "BROWSE_COLUMNS", "DATA_VARIABLE", "ASSET_VARIABLE", "PROVENANCE", "EXPORT_BUDGET", "LAYERS", "FEATURE_TEXTS", "PAIRED_ITEMS", "STEP_FRAMES", "step_features", "source_root", "run_scoring", "play_rules", "live_rules", "REFERENT_PLANE", "referents", "referent_background", "same_board_plays", "round_outcomes", "build_frames", "summarize", "write_demo", "demo_source",
    "replay_step", "round_steps", "step_count", "snapshot", "dialog_labels", "ReplayStep", "render_board", "replay_locks", "LockEvent",
    "ranking_agreement", "pairwise_agreement", "board_agreement", "rank_sums",
]
