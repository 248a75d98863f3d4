"""Charts of the published annotation layers: mentions per round (A Game Of Sorts referring expressions)
and the final score of CoDraw dialogs with and without clarification requests."""
from __future__ import annotations

import plotly.graph_objects as go

from ..analysis.charts import PALETTE, Chart, ci_error_bars, count_phrase, empty_chart, style
from ..analysis.stats import interval_note
from ..common import LoadedCorpus
from ..layers.analysis import CR_GROUPS, mentions_per_round, score_by_cr
from ..layers.load import LoadedLayer


def mentions_round_chart(layer: LoadedLayer, corpus: LoadedCorpus) -> Chart:
    table = mentions_per_round(layer, corpus)
    if table.empty or not table["mentions"].sum():
        return empty_chart("gos_mentions_by_round", "No mention of the published layer falls in a round of this corpus.")
    by_round = table.groupby("round").agg(single=("single", "sum"), group=("group", "sum"), messages=("messages", "sum"),
                                          rounds=("dialog_id", "size")).reset_index()
    figure = go.Figure()
    for index, (column, name) in enumerate((("single", "one image"), ("group", "a group of images"))):
        figure.add_trace(go.Bar(x=by_round["round"], y=by_round[column] / by_round["rounds"], name=f"mentions of {name}",
                                marker={"color": PALETTE[index]},
                                hovertemplate=f"round %{{x}}: %{{y:.1f}} mentions of {name} per round<extra></extra>"))
    style(figure, x="round number (play order)", y="mentions per round")
    figure.update_layout(barmode="stack")
    figure.update_xaxes(dtick=1)
    caption = (f"Mentions of the published layer per round by round number: {int(table['mentions'].sum()):,} mentions "
               f"({int(table['single'].sum()):,} of one image) in {int(table['annotated_messages'].sum()):,} messages of "
               f"{count_phrase(len(table), 'round')}.")
    return Chart("gos_mentions_by_round", figure, table, caption)


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
