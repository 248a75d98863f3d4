"""CoDraw analyses: final scores per split under both metrics, the score by round, how well the stored
scores are reproduced, score against dialog length, the effect of the Teller's one peek, and session
durations (from the source's ``stat`` section, when it has one).

Statistics are pure functions of the loader's ``dialogs`` and ``rounds`` frames; the ``*_chart(loaded,
splits)`` builders filter by split and wrap them into ``Chart`` bundles. ``splits`` is a tuple (hashable,
for ``ui.cached.derived``); an empty tuple means every split.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from corpora.codraw.data.icr_analysis import CR_GROUPS, score_by_cr
from dialogue_dashboard.plugin import (
    PALETTE,
    Chart,
    LoadedCorpus,
    LoadedLayer,
    ci_error_bars,
    count_phrase,
    empty_chart,
    filter_splits,
    grouped_mean_ci,
    interval_note,
    mean_ci,
    paired_difference,
    row_positions,
    split_colour,
    splits_in,
)
from dialogue_dashboard.plugin import style_chart as style

METRICS = {"final_score": "paper metric (max 5)", "final_score_original": "original 7-term metric"}
ROUND_METRICS = {"score_final": "paper metric", "score_original": "original 7-term metric"}
PAPER_METRIC_MAX = 5.0
PEEK_GAIN_BIN = 0.25
SCORE_BINS = {"start": -2.0, "end": PAPER_METRIC_MAX, "size": 0.25}
# The original metric's stored value is recomputed to the last bit; this only absorbs float noise.
REPRODUCED_TOLERANCE = 1e-9


def min_group_size(total: int, cap: int) -> int:
    """Smallest group a per-round mean is drawn for: ``cap`` on a big corpus, down to 2 (the least a
    confidence interval needs) on a small one, so that a demo corpus still shows its curve."""
    return int(max(2, min(cap, total // 100)))


def _dialog_table(loaded: LoadedCorpus, splits: tuple) -> pd.DataFrame:
    dialogs = filter_splits(loaded.dialogs, splits)
    return dialogs.reset_index(drop=True)


# ---------------------------------------------------------------------------------------------------
# Final scores


def final_score_stats(dialogs: pd.DataFrame) -> pd.DataFrame:
    """Mean final score with its 95% CI per split and metric."""
    long = dialogs.melt(id_vars=["split"], value_vars=list(METRICS), var_name="metric", value_name="score")
    return grouped_mean_ci(long, ["metric", "split"], "score")


def final_score_chart(loaded: LoadedCorpus, splits: tuple = ()) -> Chart:
    dialogs = _dialog_table(loaded, splits).dropna(subset=["final_score"])
    if dialogs.empty:
        return empty_chart("codraw_final_scores", "No dialog of the chosen splits has a final drawing.")
    data = dialogs[["dialog_id", "split", "n_rounds", "final_score", "final_score_original"]].reset_index(drop=True)
    stats = final_score_stats(data)
    figure = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.04,
                           subplot_titles=[f"{label}" for label in METRICS.values()])
    for index, split in enumerate(splits_in(data)):
        mask = data["split"] == split
        for column, (metric, _label) in enumerate(METRICS.items(), start=1):
            figure.add_trace(go.Histogram(
                x=data.loc[mask, metric], name=split, legendgroup=split, showlegend=column == 1,
                marker={"color": split_colour(split, index)}, histnorm="percent",
                xbins=SCORE_BINS, customdata=row_positions(data, mask),
                hovertemplate=f"{split}: %{{y:.1f}}% of dialogs in %{{x}}<extra></extra>"), row=1, col=column)
    style(figure, y="% of the split's dialogs")
    figure.update_yaxes(title_text=None, col=2)  # the axis is shared; a second title would overlap the first plot
    # Side by side: overlaid, three splits of near-equal shape hid train behind val and test.
    figure.update_layout(barmode="group", bargap=0.1, legend={"y": 1.1}, margin={"t": 60})
    figure.update_xaxes(title_text="score of the final drawing")
    means = stats[stats["metric"] == "final_score"].set_index("split")["mean"]
    described = ", ".join(f"{split} {means[split]:.2f}" for split in splits_in(data) if split in means)
    caption = (f"Score of the final drawing per split under both metrics (mean, paper metric: {described}) "
               f"over {count_phrase(len(data), 'dialog')}.")
    return Chart("codraw_final_scores", figure, data, caption, selectable=True,
                 bars=("final_score", "final_score", 0.25, -2.0))


def score_by_round_stats(rounds: pd.DataFrame, metric: str = "score_final") -> pd.DataFrame:
    """Mean score of the drawing after each round number, with 95% CI (rounds without a drawing skipped)."""
    drawn = rounds[rounds["after_scene"].notna()] if "after_scene" in rounds else rounds
    return grouped_mean_ci(drawn, "round", metric)


def score_by_round_chart(loaded: LoadedCorpus, splits: tuple = (), metric: str = "score_final") -> Chart:
    rounds = filter_splits(loaded.frames["rounds"], splits)
    stats = score_by_round_stats(rounds, metric)
    min_dialogs = min_group_size(rounds["dialog_id"].nunique(), 20)
    stats = stats[stats["n"] >= min_dialogs].reset_index(drop=True)
    if stats.empty:
        return empty_chart("codraw_score_by_round", "No round of the chosen splits has a drawing.")
    figure = go.Figure()
    figure.add_trace(go.Scatter(x=pd.concat([stats["round"], stats["round"][::-1]]),
                                y=pd.concat([stats["high"], stats["low"][::-1]]), fill="toself",
                                fillcolor="rgba(76,120,168,0.25)", line={"width": 0}, hoverinfo="skip",
                                name="95% CI"))
    figure.add_trace(go.Scatter(x=stats["round"], y=stats["mean"], mode="lines+markers", name="mean",
                                line={"color": PALETTE[0]}, customdata=stats["n"],
                                hovertemplate="round %{x}: %{y:.2f} (n = %{customdata:,})<extra></extra>"))
    style(figure, x="round number", y=f"mean score ({ROUND_METRICS.get(metric, metric)})")
    n_dialogs = rounds.loc[rounds["round"].isin(stats["round"]), "dialog_id"].nunique()
    caption = (f"Mean score ({ROUND_METRICS.get(metric, metric)}) of the drawing after each round with a 95% "
               f"confidence band, rounds 1–{int(stats['round'].max())} (those reached by at least {min_dialogs} "
               f"dialogs) of {count_phrase(n_dialogs, 'dialog')}. {interval_note('t')}")
    return Chart("codraw_score_by_round", figure, stats, caption)


# ---------------------------------------------------------------------------------------------------
# Stored vs recomputed


def stored_agreement(rounds: pd.DataFrame, decimals: int = 3) -> tuple[pd.DataFrame, int, int]:
    """Stored vs recomputed original-metric scores of the rounds that store one.

    Returns (distinct (stored, recomputed) pairs rounded to ``decimals`` with their round counts,
    rounds checked, rounds reproduced exactly)."""
    present = rounds[rounds["score_status"] == "present"] if "score_status" in rounds else rounds.dropna(subset=["stored_score"])
    stored = present["stored_score"].astype("float64")
    recomputed = present["score_original"].astype("float64")
    reproduced = int((np.abs(stored - recomputed) <= REPRODUCED_TOLERANCE * np.maximum(1.0, np.abs(stored))).sum())
    pairs = pd.DataFrame({"stored": stored.round(decimals), "recomputed": recomputed.round(decimals)})
    counted = pairs.groupby(["stored", "recomputed"], as_index=False).size().rename(columns={"size": "rounds"})
    return counted, int(len(present)), reproduced


def stored_agreement_chart(loaded: LoadedCorpus, splits: tuple = ()) -> Chart:
    rounds = filter_splits(loaded.frames["rounds"], splits)
    pairs, checked, reproduced = stored_agreement(rounds)
    if checked == 0:
        return empty_chart("codraw_stored_vs_recomputed", "No round of the chosen splits stores a score.")
    figure = go.Figure(go.Scattergl(
        x=pairs["stored"], y=pairs["recomputed"], mode="markers", name="rounds",
        marker={"color": PALETTE[0], "size": np.clip(np.log2(pairs["rounds"] + 1) * 2.5, 3, 16), "opacity": 0.6},
        customdata=pairs["rounds"], hovertemplate="stored %{x:.3f}, recomputed %{y:.3f}: %{customdata:,} rounds<extra></extra>"))
    low = float(min(pairs["stored"].min(), pairs["recomputed"].min()))
    high = float(max(pairs["stored"].max(), pairs["recomputed"].max()))
    figure.add_trace(go.Scatter(x=[low, high], y=[low, high], mode="lines", name="identity",
                                line={"color": "#999999", "dash": "dash"}, hoverinfo="skip"))
    style(figure, x="stored score (original metric)", y="recomputed score (original metric)")
    n_dialogs = rounds.loc[rounds["score_status"] == "present", "dialog_id"].nunique()
    caption = (f"Stored against recomputed original-metric scores: {reproduced:,} of {checked:,} stored scores "
               f"reproduced exactly ({reproduced / checked:.2%}), from {count_phrase(n_dialogs, 'dialog')}.")
    data = pairs.assign(checked=checked, reproduced=reproduced)
    return Chart("codraw_stored_vs_recomputed", figure, data, caption)


def score_vs_length_chart(loaded: LoadedCorpus, splits: tuple = ()) -> Chart:
    dialogs = _dialog_table(loaded, splits).dropna(subset=["final_score"])
    if dialogs.empty:
        return empty_chart("codraw_score_vs_length", "No dialog of the chosen splits has a final drawing.")
    data = dialogs[["dialog_id", "split", "n_rounds", "final_score"]].reset_index(drop=True)
    stats = grouped_mean_ci(data, "n_rounds", "final_score")
    # No mean can exceed the metric's maximum: the part of an interval beyond it (a few dialogs of one length,
    # t intervals) holds no possible value, so each ends there, as the caption says.
    clipped = int((stats["high"] > PAPER_METRIC_MAX).sum())
    stats["high"] = stats["high"].clip(upper=PAPER_METRIC_MAX)
    jitter = np.random.default_rng(0).uniform(-0.3, 0.3, len(data))
    figure = go.Figure()
    figure.add_trace(go.Scattergl(
        x=data["n_rounds"] + jitter, y=data["final_score"], mode="markers", name="dialog",
        marker={"color": PALETTE[0], "size": 4, "opacity": 0.3}, customdata=row_positions(data),
        text=data["dialog_id"], hovertemplate="%{text}: %{y:.2f}<extra></extra>"))
    figure.add_trace(go.Scatter(
        x=stats["n_rounds"], y=stats["mean"], mode="lines+markers", name="mean (95% CI)",
        line={"color": PALETTE[3]},
        error_y=ci_error_bars(stats["mean"], stats["low"], stats["high"], thickness=1),
        hovertemplate="%{x} rounds: mean %{y:.2f}<extra></extra>"))
    style(figure, x="dialog length (rounds)", y="final score (paper metric)")
    correlation = float(np.corrcoef(data["n_rounds"], data["final_score"])[0, 1]) if len(data) > 2 else np.nan
    caption = (f"Final score (paper metric) against dialog length, with the mean per length (Pearson r = "
               f"{correlation:.2f}), over {count_phrase(len(data), 'dialog')}. {interval_note('t')}"
               + (f" {count_phrase(clipped, 'interval')} {'ends' if clipped == 1 else 'end'} at 5, the metric's maximum."
                  if clipped else ""))
    return Chart("codraw_score_vs_length", figure, data, caption, selectable=True)


# ---------------------------------------------------------------------------------------------------
# Peek effects


def peek_table(dialogs: pd.DataFrame) -> pd.DataFrame:
    """Dialogs whose Teller peeked and that have a drawing before the peek and a final drawing, with
    ``gain`` = final score − score of the last drawing before the peek (paper metric)."""
    peeked = dialogs[dialogs["peek_round"].notna()].dropna(subset=["score_before_peek", "final_score"])
    columns = ["dialog_id", "split", "n_rounds", "peek_round", "rounds_after_peek", "score_before_peek", "final_score"]
    table = peeked[[c for c in columns if c in peeked]].reset_index(drop=True)
    if "rounds_after_peek" not in table:
        table["rounds_after_peek"] = table["n_rounds"] - table["peek_round"] + 1
    table["peek_round"] = table["peek_round"].astype("int64")
    table["rounds_after_peek"] = table["rounds_after_peek"].astype("int64")
    table["gain"] = table["final_score"] - table["score_before_peek"]
    return table


def peek_summary(dialogs: pd.DataFrame):
    """PairedDifference of the score before the peek → final score over the peeked dialogs."""
    table = peek_table(dialogs)
    return paired_difference(table["score_before_peek"], table["final_score"])


def peek_gain_chart(loaded: LoadedCorpus, splits: tuple = ()) -> Chart:
    table = peek_table(_dialog_table(loaded, splits))
    if table.empty:
        return empty_chart("codraw_peek_gain", "No dialog of the chosen splits has a peek with drawings on both sides.")
    summary = paired_difference(table["score_before_peek"], table["final_score"])
    # bars [k/4, (k+1)/4): one edge at 0, as a slice of selected bars says them (``slices.builders.bars_node``)
    start = math.floor(float(table["gain"].min()) / PEEK_GAIN_BIN) * PEEK_GAIN_BIN
    figure = go.Figure(go.Histogram(
        x=table["gain"], marker={"color": PALETTE[0]}, xbins={"start": start, "size": PEEK_GAIN_BIN},
        customdata=row_positions(table),
        name="dialogs", hovertemplate="gain %{x}: %{y:,} dialogs<extra></extra>"))
    figure.add_vline(x=0, line_color="#999999")
    figure.add_vline(x=summary.change.mean, line_dash="dash", line_color=PALETTE[3],
                     annotation_text=f"mean {summary.change.mean:+.2f}", annotation_position="top right")
    style(figure, x="final score − score of the last drawing before the peek", y="dialogs", legend=False)
    caption = (f"Change from the last drawing before the peek to the final drawing (paper metric): "
               f"{summary.mean_before:.2f} → {summary.mean_after:.2f}, mean change {summary.change.describe(with_n=False, sign=True)} "
               f"over {count_phrase(summary.n, 'peeked dialog')}. {interval_note('t')}")
    return Chart("codraw_peek_gain", figure, table, caption, selectable=True, bars=("peek_gain", "gain", 0.25, 0.0))


def gain_by_peek_round_chart(loaded: LoadedCorpus, splits: tuple = ()) -> Chart:
    table = peek_table(_dialog_table(loaded, splits))
    min_dialogs = min_group_size(len(table), 10)
    stats = grouped_mean_ci(table, "peek_round", "gain") if len(table) else pd.DataFrame()
    stats = stats[stats["n"] >= min_dialogs].reset_index(drop=True) if len(stats) else stats
    if stats.empty:
        return empty_chart("codraw_gain_by_peek_round", "Too few peeked dialogs in the chosen splits.")
    figure = go.Figure(go.Scatter(
        x=stats["peek_round"], y=stats["mean"], mode="lines+markers", name="mean gain (95% CI)",
        line={"color": PALETTE[0]}, customdata=stats["n"],
        error_y=ci_error_bars(stats["mean"], stats["low"], stats["high"]),
        hovertemplate="peek before round %{x}: mean gain %{y:+.2f} (n = %{customdata:,})<extra></extra>"))
    figure.add_hline(y=0, line_color="#999999")
    style(figure, x="round in which the Teller had peeked (the round marked “peeked”)", y="mean gain", legend=False)
    shown = int(stats["n"].sum())
    caption = (f"Mean score gain from the peek (95% CI) by the round of the peek, rounds with at least "
               f"{min_dialogs} peeks, over {count_phrase(shown, 'peeked dialog')}. {interval_note('t')}")
    return Chart("codraw_gain_by_peek_round", figure, stats, caption)


def peek_vs_no_peek_chart(loaded: LoadedCorpus, splits: tuple = ()) -> Chart:
    dialogs = _dialog_table(loaded, splits).dropna(subset=["final_score"])
    if dialogs.empty:
        return empty_chart("codraw_peek_vs_no_peek", "No dialog of the chosen splits has a final drawing.")
    data = dialogs[["dialog_id", "split", "n_rounds", "peek_round", "final_score"]].reset_index(drop=True)
    data["peeked"] = data["peek_round"].notna()
    figure = go.Figure()
    parts = []
    for index, (peeked, label) in enumerate(((True, "with a peek"), (False, "without a peek"))):
        mask = data["peeked"] == peeked
        if not mask.any():
            continue
        summary = mean_ci(data.loc[mask, "final_score"])
        parts.append(f"{label} {summary.mean:.2f} (n = {summary.n:,})")
        figure.add_trace(go.Histogram(
            x=data.loc[mask, "final_score"], name=label, histnorm="percent", xbins=SCORE_BINS, opacity=0.6,
            marker={"color": PALETTE[index * 3]}, customdata=row_positions(data, mask),
            hovertemplate=f"{label}: %{{y:.1f}}% in %{{x}}<extra></extra>"))
    style(figure, x="final score (paper metric)", y="% of the group's dialogs")
    figure.update_layout(barmode="overlay")
    caption = f"Final score of dialogs with and without a peek (mean: {'; '.join(parts)})."
    return Chart("codraw_peek_vs_no_peek", figure, data, caption, selectable=True)


def rounds_after_peek_chart(loaded: LoadedCorpus, splits: tuple = ()) -> Chart:
    table = peek_table(_dialog_table(loaded, splits))
    if table.empty:
        return empty_chart("codraw_rounds_after_peek", "No dialog of the chosen splits has a peek.")
    figure = go.Figure(go.Histogram(
        x=table["rounds_after_peek"], xbins={"size": 1}, marker={"color": PALETTE[0]}, name="dialogs",
        customdata=row_positions(table), hovertemplate="%{x} rounds: %{y:,} dialogs<extra></extra>"))
    style(figure, x="rounds from the peek to the end (the peeked round included)", y="dialogs", legend=False)
    summary = mean_ci(table["rounds_after_peek"], method="bootstrap")  # a count: the interval stays above 0
    caption = (f"Rounds spent after the peek (the peeked round included): mean {summary.describe(with_n=False)} "
               f"over {count_phrase(summary.n, 'peeked dialog')}. {interval_note('bootstrap')}")
    return Chart("codraw_rounds_after_peek", figure, table, caption, selectable=True)


# ---------------------------------------------------------------------------------------------------
# Durations


def has_durations(loaded: LoadedCorpus) -> bool:
    """Whether the source's ``stat`` section gave any session duration."""
    return bool(loaded.dialogs["duration_s"].notna().any())


def duration_chart(loaded: LoadedCorpus, splits: tuple = ()) -> Chart:
    dialogs = _dialog_table(loaded, splits).dropna(subset=["duration_s"])
    if dialogs.empty:
        return empty_chart("codraw_durations", "This CoDraw source has no session durations (its `stat` section is empty).")
    data = dialogs[["dialog_id", "split", "n_rounds", "duration_s"]].reset_index(drop=True)
    data["duration_min"] = data["duration_s"] / 60
    figure = go.Figure()
    parts = []
    for index, split in enumerate(splits_in(data)):
        mask = data["split"] == split
        parts.append(f"{split} {data.loc[mask, 'duration_min'].median():.1f} min")
        figure.add_trace(go.Histogram(
            x=data.loc[mask, "duration_min"], name=split, marker={"color": split_colour(split, index)},
            customdata=row_positions(data, mask), hovertemplate=f"{split}: %{{y:,}} dialogs in %{{x}} min<extra></extra>"))
    style(figure, x="session duration (min, from stat)", y="dialogs")
    figure.update_layout(barmode="group")
    missing = int(_dialog_table(loaded, splits)["duration_s"].isna().sum())
    caption = (f"CoDraw session durations from the source's stat section (median: {', '.join(parts)}) over "
               f"{count_phrase(len(data), 'dialog')}"
               + (f"; {count_phrase(missing, 'dialog')} {'has' if missing == 1 else 'have'} none." if missing else "."))
    return Chart("codraw_durations", figure, data, caption, selectable=True)


def peek_summary_for(loaded: LoadedCorpus, splits: tuple = ()):
    """``peek_summary`` of the chosen splits (the page's headline numbers)."""
    return peek_summary(_dialog_table(loaded, splits))


# -- the published CR layer ---------------------------------------------------------------------------------------

def score_by_cr_chart(layer: LoadedLayer, corpus: LoadedCorpus, splits: tuple = ()) -> Chart:
    stats, data = score_by_cr(layer, corpus, splits)
    overall = stats[(stats["split"] == "all") & (stats["n"] > 0)]
    if overall.empty or layer.annotations.empty:
        return empty_chart("codraw_score_by_cr", "No dialog of the chosen splits has both a final score and an aligned CR row.")
    figure = go.Figure()
    for index, group in enumerate(CR_GROUPS):
        row = overall[overall["group"] == group]
        if row.empty:
            continue
        figure.add_trace(go.Scatter(
            x=[group], y=row["mean"], mode="markers", name=f"{group} (n = {int(row['n'].iloc[0]):,})",
            marker={"color": PALETTE[index], "size": 14},
            error_y=ci_error_bars(row["mean"], row["low"], row["high"], thickness=2),
            hovertemplate="%{x}: mean %{y:.3f}<extra></extra>"))
    style(figure, y="mean final score (95% bootstrap CI)")
    low = float(overall["low"].fillna(overall["mean"]).min())
    high = float(overall["high"].fillna(overall["mean"]).max())
    pad = max(0.05, (high - low) * 0.3)
    figure.update_yaxes(range=[max(0.0, low - pad), min(5.0, high + pad)])
    n_cr = int(overall.loc[overall["group"] == CR_GROUPS[0], "n"].sum())
    caption = (f"Mean final score (paper's metric, max 5) of dialogs with at least one clarification request of the "
               f"published layer ({n_cr:,}), dialogs whose aligned rows hold none, and dialogs without a uniquely "
               f"aligned row, over {count_phrase(len(data), 'dialog')}. {interval_note('bootstrap')} It stays within the "
               "scores' 0–5 range.")
    return Chart("codraw_score_by_cr", figure, stats, caption)
