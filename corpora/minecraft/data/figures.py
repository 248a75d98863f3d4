"""Minecraft Collaborative Building analyses: Builder actions per utterance, placements against
removals, how close the build gets to its target over the (normalised) course of a game, the outcome by
split, and game durations.

The build-progress curve re-scores every state against the target under the game's final alignment
(the rotation and x/z shift ``dialogs`` records, as in the repo's ``diff.py``): each action adds or
removes a block that is or is not a target block, so the blocks in common are a cumulative sum over
the ``actions`` frame and no state is re-aligned. Everything is vectorised over the whole corpus.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dialogue_dashboard.plugin import (
    INTERVALS,
    PALETTE,
    Chart,
    LoadedCorpus,
    ci_error_bars,
    count_phrase,
    empty_chart,
    filter_splits,
    grouped_mean_ci,
    interval_note,
    mean_ci,
    row_positions,
    split_colour,
    splits_in,
)
from dialogue_dashboard.plugin import style_chart as style

PROGRESS_POINTS = 21  # 0 %, 5 %, … 100 % of a game's states


def _games(loaded: LoadedCorpus, splits: tuple) -> pd.DataFrame:
    return filter_splits(loaded.dialogs, splits).reset_index(drop=True)


# ---------------------------------------------------------------------------------------------------
# Actions


def action_table(dialogs: pd.DataFrame) -> pd.DataFrame:
    """Per game: placements, removals, their sum and Builder actions per utterance (NaN without utterances)."""
    table = dialogs[["dialog_id", "split", "n_utterances", "placements", "removals"]].copy()
    table["actions"] = table["placements"] + table["removals"]
    table["actions_per_utterance"] = table["actions"] / table["n_utterances"].where(table["n_utterances"] > 0)
    return table.reset_index(drop=True)


def actions_per_utterance_chart(loaded: LoadedCorpus, splits: tuple = ()) -> Chart:
    table = action_table(_games(loaded, splits)).dropna(subset=["actions_per_utterance"]).reset_index(drop=True)
    if table.empty:
        return empty_chart("minecraft_actions_per_utterance", "No game of the chosen splits has an utterance.")
    figure = go.Figure()
    for index, split in enumerate(splits_in(table)):
        mask = table["split"] == split
        figure.add_trace(go.Histogram(
            x=table.loc[mask, "actions_per_utterance"], name=split, opacity=0.65, xbins={"size": 0.25},
            marker={"color": split_colour(split, index)}, customdata=row_positions(table, mask),
            hovertemplate=f"{split}: %{{y}} games at %{{x}}<extra></extra>"))
    style(figure, x="Builder actions (placements + removals) per utterance", y="games")
    figure.update_layout(barmode="stack")
    overall = table["actions"].sum() / table["n_utterances"].sum()
    per_game = mean_ci(table["actions_per_utterance"], method="bootstrap")
    caption = (f"Builder actions per utterance: {overall:.2f} over all utterances, per game mean "
               f"{per_game.describe(with_n=False)}, over {count_phrase(len(table), 'game')}. {interval_note('bootstrap')}")
    return Chart("minecraft_actions_per_utterance", figure, table, caption, selectable=True)


def placements_removals_chart(loaded: LoadedCorpus, splits: tuple = ()) -> Chart:
    table = action_table(_games(loaded, splits))
    if table.empty:
        return empty_chart("minecraft_placements_removals", "No game in the chosen splits.")
    figure = go.Figure()
    for index, split in enumerate(splits_in(table)):
        mask = table["split"] == split
        figure.add_trace(go.Scatter(
            x=table.loc[mask, "placements"], y=table.loc[mask, "removals"], mode="markers", name=split,
            marker={"color": split_colour(split, index), "opacity": 0.7}, customdata=row_positions(table, mask),
            text=table.loc[mask, "dialog_id"], hovertemplate="%{text}<br>%{x} placements, %{y} removals<extra></extra>"))
    style(figure, x="placements", y="removals")
    placements, removals = int(table["placements"].sum()), int(table["removals"].sum())
    share = removals / (placements + removals) if placements + removals else float("nan")
    caption = (f"Placements against removals per game ({placements:,} placements, {removals:,} removals: "
               f"{share:.0%} of actions are removals) over {count_phrase(len(table), 'game')}.")
    return Chart("minecraft_placements_removals", figure, table, caption, selectable=True)


# ---------------------------------------------------------------------------------------------------
# Progress towards the target


def _rotate(x: np.ndarray, z: np.ndarray, rotation: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rotation about the vertical axis by 0/90/180/270 degrees, per row (as ``minecraft.blocks.rotate_xz``)."""
    r = np.asarray(rotation) % 360
    new_x = np.select([r == 90, r == 180, r == 270], [-z, -x, z], default=x)
    new_z = np.select([r == 90, r == 180, r == 270], [x, -z, -x], default=z)
    return new_x, new_z


def state_f1(dialogs: pd.DataFrame, states: pd.DataFrame, actions: pd.DataFrame, gold: pd.DataFrame) -> pd.DataFrame:
    """Block F1 to the target after every state of every game with a target, under the game's final alignment.

    Columns: game, idx, progress (idx / last idx, 0..1), matched, n_blocks, gold_blocks, f1."""
    games = dialogs.loc[dialogs["gold_blocks"] > 0, ["dialog_id", "config", "gold_blocks", "align_rotation", "align_dx", "align_dz"]]
    games = games.rename(columns={"dialog_id": "game"})
    moves = actions.merge(games, on="game", how="inner")
    x, z = _rotate(moves["x"].to_numpy(), moves["z"].to_numpy(), moves["align_rotation"].to_numpy())
    moves = moves.assign(gx=x + moves["align_dx"].to_numpy(), gz=z + moves["align_dz"].to_numpy())
    target = gold[["config", "x", "y", "z", "color"]].drop_duplicates().rename(columns={"x": "gx", "z": "gz"})
    target = target.assign(on_target=True)
    moves = moves.merge(target, on=["config", "gx", "y", "gz", "color"], how="left")
    on_target = moves["on_target"].fillna(False).astype(bool).to_numpy()
    moves["delta"] = np.where(moves["kind"] == "placement", 1, -1) * on_target
    delta = moves.groupby(["game", "state_idx"], as_index=False)["delta"].sum().rename(columns={"state_idx": "idx"})
    frame = states[["game", "idx", "n_blocks"]].merge(games[["game", "gold_blocks"]], on="game", how="inner")
    frame = frame.merge(delta, on=["game", "idx"], how="left").sort_values(["game", "idx"], ignore_index=True)
    frame["matched"] = frame["delta"].fillna(0).astype("int64").groupby(frame["game"]).cumsum()
    total = frame["n_blocks"] + frame["gold_blocks"]
    frame["f1"] = np.where(total > 0, 2.0 * frame["matched"] / total.where(total > 0, 1), 0.0)
    last = frame.groupby("game")["idx"].transform("max")
    frame["progress"] = np.where(last > 0, frame["idx"] / last.where(last > 0, 1), 1.0)
    return frame[["game", "idx", "progress", "matched", "n_blocks", "gold_blocks", "f1"]]


def f1_progress(per_state: pd.DataFrame, points: int = PROGRESS_POINTS) -> pd.DataFrame:
    """Per game and progress point (0, 1/(points−1), … 1): the F1 of the last state at or before it."""
    grid = np.linspace(0.0, 1.0, points)
    games = per_state["game"].unique()
    wanted = pd.DataFrame({"game": np.repeat(games, points), "progress": np.tile(grid, len(games))})
    ordered = per_state.sort_values("progress")
    # A tiny tolerance so that 0.35 finds the state at 7/20 despite float rounding.
    wanted["lookup"] = wanted["progress"] + 1e-9
    picked = pd.merge_asof(wanted.sort_values("lookup"), ordered[["game", "progress", "f1"]].rename(columns={"progress": "lookup"}),
                           on="lookup", by="game", direction="backward")
    return picked.drop(columns="lookup").sort_values(["game", "progress"], ignore_index=True)


def f1_progress_chart(loaded: LoadedCorpus, splits: tuple = ()) -> Chart:
    frames = loaded.frames
    games = _games(loaded, splits)
    per_state = state_f1(games, frames["states"], frames["actions"], frames["gold"])
    if per_state.empty:
        return empty_chart("minecraft_f1_progress", "No game of the chosen splits has a target structure.")
    curve = f1_progress(per_state).merge(games[["dialog_id", "split"]].rename(columns={"dialog_id": "game"}), on="game")
    stats = grouped_mean_ci(curve, ["split", "progress"], "f1", method="bootstrap")  # F1: inside [0, 1]
    figure = go.Figure()
    for index, split in enumerate(splits_in(stats)):
        part = stats[stats["split"] == split]
        colour = split_colour(split, index)
        x = part["progress"] * 100
        figure.add_trace(go.Scatter(x=pd.concat([x, x[::-1]]), y=pd.concat([part["high"], part["low"][::-1]]),
                                    fill="toself", fillcolor=colour, opacity=0.18, line={"width": 0},
                                    hoverinfo="skip", showlegend=False, legendgroup=split))
        figure.add_trace(go.Scatter(x=x, y=part["mean"], mode="lines", name=split, line={"color": colour},
                                    legendgroup=split, customdata=part["n"],
                                    hovertemplate=f"{split}, %{{x:.0f}}% of the game: F1 %{{y:.2f}} (n = %{{customdata}})<extra></extra>"))
    style(figure, x="% of the game's states", y="block F1 to the target (final alignment)")
    figure.update_yaxes(range=[0, 1.02])
    caption = (f"Mean block F1 to the target (95% CI band) over the normalised course of a game, per split, "
               f"over {count_phrase(curve['game'].nunique(), 'game')} with a target. {interval_note('bootstrap')}")
    return Chart("minecraft_f1_progress", figure, stats, caption)


def outcome_stats(dialogs: pd.DataFrame) -> pd.DataFrame:
    """Per split: games, share built exactly (aligned match) and mean final F1, each with a 95% CI."""
    games = dialogs[dialogs["gold_blocks"] > 0]
    rows = []
    for split in splits_in(games):
        part = games[games["split"] == split]
        match = mean_ci(part["outcome_match"].astype(float), method="wilson")
        f1 = mean_ci(part["outcome_f1"], method="bootstrap")
        rows.append({"split": split, "games": len(part), "match_rate": match.mean, "match_low": match.low,
                     "match_high": match.high, "mean_f1": f1.mean, "f1_low": f1.low, "f1_high": f1.high})
    return pd.DataFrame(rows, columns=["split", "games", "match_rate", "match_low", "match_high", "mean_f1", "f1_low", "f1_high"])


def outcome_chart(loaded: LoadedCorpus, splits: tuple = ()) -> Chart:
    games = _games(loaded, splits)
    stats = outcome_stats(games)
    if stats.empty:
        return empty_chart("minecraft_outcomes", "No game of the chosen splits has a target structure.")
    figure = go.Figure()
    for index, (column, low, high, name) in enumerate((("match_rate", "match_low", "match_high", "built exactly (aligned)"),
                                                       ("mean_f1", "f1_low", "f1_high", "mean final block F1"))):
        figure.add_trace(go.Bar(
            x=stats["split"], y=stats[column], name=name, marker={"color": PALETTE[index]}, customdata=stats["games"],
            error_y=ci_error_bars(stats[column], stats[low], stats[high]),
            hovertemplate="%{x}: %{y:.2f} (%{customdata} games)<extra></extra>"))
    style(figure, x="split", y="share / F1 (95% CI)")
    figure.update_layout(barmode="group")
    figure.update_yaxes(range=[0, 1.05])
    with_target = games[games["gold_blocks"] > 0]
    caption = (f"Outcome by split: {int(with_target['outcome_match'].sum()):,} of {count_phrase(len(with_target), 'game')} "
               f"end with the target built exactly (up to rotation and shift), and their mean final block F1. "
               f"Intervals: 95% {INTERVALS['wilson']} built exactly; 95% {INTERVALS['bootstrap']} F1.")
    return Chart("minecraft_outcomes", figure, stats, caption)


# ---------------------------------------------------------------------------------------------------
# Durations


def duration_table(dialogs: pd.DataFrame) -> pd.DataFrame:
    """Per game: duration (TimeElapsed), utterances and seconds per utterance (NaN without utterances)."""
    table = dialogs[["dialog_id", "split", "duration_s", "n_utterances"]].dropna(subset=["duration_s"]).copy()
    table["seconds_per_utterance"] = table["duration_s"] / table["n_utterances"].where(table["n_utterances"] > 0)
    return table.reset_index(drop=True)


def duration_chart(loaded: LoadedCorpus, splits: tuple = ()) -> Chart:
    table = duration_table(_games(loaded, splits))
    if table.empty:
        return empty_chart("minecraft_durations", "No game of the chosen splits has a duration.")
    figure = go.Figure()
    parts = []
    for index, split in enumerate(splits_in(table)):
        mask = table["split"] == split
        parts.append(f"{split} {table.loc[mask, 'duration_s'].mean():.0f} s")
        figure.add_trace(go.Box(
            x=np.repeat(split, int(mask.sum())), y=table.loc[mask, "duration_s"], name=split, boxpoints="all",
            jitter=0.4, pointpos=0, marker={"color": split_colour(split, index), "size": 5, "opacity": 0.6},
            customdata=row_positions(table, mask), text=table.loc[mask, "dialog_id"],
            hovertemplate="%{text}: %{y:.0f} s<extra></extra>"))
    style(figure, x="split", y="game duration (s, TimeElapsed)", legend=False)
    caption = (f"Minecraft game durations by split (mean: {', '.join(parts)}) over {count_phrase(len(table), 'game')}.")
    return Chart("minecraft_durations", figure, table, caption, selectable=True)


def seconds_per_utterance_chart(loaded: LoadedCorpus, splits: tuple = ()) -> Chart:
    table = duration_table(_games(loaded, splits)).dropna(subset=["seconds_per_utterance"]).reset_index(drop=True)
    if table.empty:
        return empty_chart("minecraft_seconds_per_utterance", "No game of the chosen splits has an utterance.")
    figure = go.Figure()
    for index, split in enumerate(splits_in(table)):
        mask = table["split"] == split
        figure.add_trace(go.Scatter(
            x=table.loc[mask, "n_utterances"], y=table.loc[mask, "duration_s"], mode="markers", name=split,
            marker={"color": split_colour(split, index), "opacity": 0.7}, customdata=row_positions(table, mask),
            text=table.loc[mask, "dialog_id"],
            hovertemplate="%{text}<br>%{x} utterances in %{y:.0f} s<extra></extra>"))
    style(figure, x="utterances", y="game duration (s)")
    per_game = mean_ci(table["seconds_per_utterance"])
    overall = table["duration_s"].sum() / table["n_utterances"].sum()
    caption = (f"Game duration against utterances: {overall:.1f} s per utterance overall, per game mean "
               f"{per_game.describe(digits=1, with_n=False)} s, over {count_phrase(len(table), 'game')}.")
    return Chart("minecraft_seconds_per_utterance", figure, table, caption, selectable=True)
