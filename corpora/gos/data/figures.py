"""A Game Of Sorts analyses: round durations and the time to each rank, interaction lengths, mismatches
and manual unlocks, agreement between the three rankings every board received, whether a message's
self-annotated images are the next one ranked, and the post-game survey.

Statistics are pure functions of the loader's frames (``rounds``, ``ranks``, ``messages``, ``survey``,
``dialogs``, ``boards``); the ``*_chart(loaded)`` builders wrap them into ``Chart`` bundles for the pages.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from corpora.gos.data.agreement import board_agreement, rank_matrix, rank_sums  # noqa: F401 - the one definition, re-exported
from corpora.gos.data.mentions_analysis import mentions_per_round
from dialogue_dashboard.plugin import (
    PALETTE,
    PLOT_HEIGHT,
    Chart,
    LoadedCorpus,
    LoadedLayer,
    ci_error_bars,
    count_phrase,
    empty_chart,
    grouped_mean_ci,
    interval_note,
    mean_ci,
    row_positions,
)
from dialogue_dashboard.plugin import style_chart as style

LIKERT_QUESTIONS = ("q1", "q2", "q3")
LIKERT_LABELS = {1: "Strongly disagree", 2: "Disagree", 3: "Neutral", 4: "Agree", 5: "Strongly agree"}
LIKERT_COLOURS = {1: "#CA0020", 2: "#F4A582", 3: "#BABABA", 4: "#92C5DE", 5: "#0571B0"}
BOARD_SIZE = 9


def _interactions(frame: pd.DataFrame) -> int:
    return int(frame["interaction_id"].nunique()) if "interaction_id" in frame else 0


# ---------------------------------------------------------------------------------------------------
# Durations


def round_duration_stats(rounds: pd.DataFrame) -> pd.DataFrame:
    """Mean round duration (first event → 9th rank) with its 95% CI per round number."""
    return grouped_mean_ci(rounds, "round", "duration_s", method="bootstrap")


def round_duration_chart(loaded: LoadedCorpus) -> Chart:
    rounds = loaded.frames["rounds"].dropna(subset=["duration_s"]).reset_index(drop=True)
    if rounds.empty:
        return empty_chart("gos_round_durations", "No round was fully ranked, so no round has a duration.")
    data = rounds[["interaction_id", "round", "board_id", "duration_s", "n_messages"]].rename(
        columns={"interaction_id": "dialog_id"})
    stats = round_duration_stats(rounds)
    figure = go.Figure()
    jitter = np.random.default_rng(0).uniform(-0.12, 0.12, len(data))
    figure.add_trace(go.Scatter(
        x=data["round"] + jitter, y=data["duration_s"], mode="markers", name="round",
        marker={"color": PALETTE[0], "opacity": 0.55, "size": 8}, customdata=row_positions(data),
        text=data["dialog_id"], hovertemplate="%{text}<br>%{y:.0f} s<extra></extra>"))
    figure.add_trace(go.Scatter(
        x=stats["round"], y=stats["mean"], mode="markers+lines", name="mean (95% CI)",
        marker={"color": PALETTE[3], "size": 11, "symbol": "diamond"}, line={"color": PALETTE[3]},
        error_y=ci_error_bars(stats["mean"], stats["low"], stats["high"]),
        hovertemplate="round %{x}: mean %{y:.0f} s<extra></extra>"))
    style(figure, x="round number (play order)", y="duration (s): first event → 9th rank")
    figure.update_xaxes(tickvals=sorted(data["round"].unique()))
    means = ", ".join(f"r{int(r)} {m:,.0f} s" for r, m in zip(stats["round"], stats["mean"]))
    caption = (f"Round duration by round number (mean with 95% CI: {means}) over "
               f"{count_phrase(len(data), 'round')} of {count_phrase(_interactions(rounds), 'interaction')}. "
               f"{interval_note('bootstrap')}")
    return Chart("gos_round_durations", figure, data, caption, selectable=True)


def rank_time_stats(ranks: pd.DataFrame) -> pd.DataFrame:
    """Mean seconds from the round's first event to each successive rank, per round number and rank."""
    return grouped_mean_ci(ranks, ["round", "rank"], "round_time_s", method="bootstrap")


def rank_time_chart(loaded: LoadedCorpus) -> Chart:
    ranks = loaded.frames["ranks"]
    if ranks.empty:
        return empty_chart("gos_rank_times", "No image was ranked.")
    stats = rank_time_stats(ranks)
    figure = go.Figure()
    for index, (round_number, group) in enumerate(stats.groupby("round")):
        colour = PALETTE[index % len(PALETTE)]
        figure.add_trace(go.Scatter(
            x=group["rank"], y=group["mean"], mode="lines+markers", name=f"round {round_number}",
            line={"color": colour}, error_y=ci_error_bars(group["mean"], group["low"], group["high"], thickness=1),
            hovertemplate=f"round {round_number}, rank %{{x}}: %{{y:.0f}} s<extra></extra>"))
    style(figure, x="rank (1 = agreed first)", y="seconds since the round's first event")
    figure.update_xaxes(dtick=1)
    n_rounds = len(ranks[["interaction_id", "round"]].drop_duplicates())
    caption = (f"Mean time (95% CI) until each successive rank, one line per round number, over "
               f"{count_phrase(n_rounds, 'round')} of {count_phrase(_interactions(ranks), 'interaction')}. "
               f"{interval_note('bootstrap')}")
    return Chart("gos_rank_times", figure, stats, caption)


def interaction_length_chart(loaded: LoadedCorpus) -> Chart:
    dialogs = loaded.dialogs.dropna(subset=["duration_s"])
    if dialogs.empty:
        return empty_chart("gos_interaction_lengths", "No interaction has a known length.")
    columns = [c for c in ("dialog_id", "game_id", "category", "duration_s", "n_messages") if c in dialogs]
    data = dialogs[columns].sort_values("duration_s").reset_index(drop=True)
    data["duration_min"] = data["duration_s"] / 60
    summary = mean_ci(data["duration_min"], method="bootstrap")
    sd_population = float(data["duration_min"].std(ddof=0))
    figure = go.Figure(go.Bar(
        x=data["dialog_id"].str[:8], y=data["duration_min"], customdata=row_positions(data),
        marker={"color": PALETTE[0]}, name="interaction",
        hovertext=data["category"] if "category" in data else None,
        hovertemplate="%{x}… %{hovertext}<br>%{y:.1f} min<extra></extra>"))
    figure.add_hline(y=summary.mean, line_dash="dash", line_color=PALETTE[3],
                     annotation_text=f"mean {summary.mean:.1f} min", annotation_position="top left")
    style(figure, x="interaction (first 8 hex digits)", y="first → last event (min)", legend=False)
    caption = (f"Interaction length, first to last event: mean {summary.mean:.1f} min (SD {sd_population:.1f}, "
               f"95% bootstrap CI {summary.low:.1f}–{summary.high:.1f}) over {count_phrase(len(data), 'interaction')}. "
               f"{interval_note('bootstrap')}")
    return Chart("gos_interaction_lengths", figure, data, caption, selectable=True)


# ---------------------------------------------------------------------------------------------------
# Lock outcomes


def lock_outcome_stats(rounds: pd.DataFrame) -> pd.DataFrame:
    """Per round number and measure (mismatches, manual unlocks): mean per round with its 95% CI."""
    long = rounds.melt(id_vars=["round"], value_vars=["mismatches", "manual_unlocks"],
                       var_name="measure", value_name="count")
    return grouped_mean_ci(long, ["measure", "round"], "count", method="bootstrap")  # counts: never below 0


def lock_outcome_chart(loaded: LoadedCorpus) -> Chart:
    rounds = loaded.frames["rounds"]
    if rounds.empty:
        return empty_chart("gos_lock_outcomes", "No round to count.")
    stats = lock_outcome_stats(rounds)
    names = {"mismatches": "mismatches (different images locked)", "manual_unlocks": "manual unlocks"}
    figure = go.Figure()
    for index, measure in enumerate(names):
        group = stats[stats["measure"] == measure]
        figure.add_trace(go.Bar(
            x=group["round"], y=group["mean"], name=names.get(measure, measure),
            marker={"color": PALETTE[index * 2 % len(PALETTE)]},
            error_y=ci_error_bars(group["mean"], group["low"], group["high"]),
            customdata=group["round"].astype("int64").to_numpy().reshape(-1, 1),
            hovertemplate="round %{x}: %{y:.2f} per round<extra></extra>"))
    style(figure, x="round number", y="mean per round (95% CI)")
    figure.update_layout(barmode="group")
    figure.update_xaxes(dtick=1)
    caption = (f"Mismatches and manual unlocks per round by round number ({int(rounds['mismatches'].sum())} "
               f"mismatches, {int(rounds['manual_unlocks'].sum())} manual unlocks in all) over "
               f"{count_phrase(len(rounds), 'round')} of {count_phrase(_interactions(rounds), 'interaction')}. "
               f"{interval_note('bootstrap')}")
    drill = rounds.rename(columns={"interaction_id": "dialog_id"})
    drill = drill[["dialog_id", "round", "board_id", "mismatches", "manual_unlocks"]].assign(group=drill["round"].astype("int64"))
    return Chart("gos_lock_outcomes", figure, stats, caption, drill=drill)


# ---------------------------------------------------------------------------------------------------
# Agreement between the rankings of a board


def _board_label(board_id: pd.Series) -> pd.Series:
    """'game_4_mobile-phones_1_board_2' → 'mobile-phones 2' (short axis labels)."""
    short = board_id.str.replace(r"^game_\d+_", "", regex=True).str.replace(r"_\d+_board_", " ", regex=True)
    return short.where(short != "", board_id)


def board_agreement_chart(loaded: LoadedCorpus) -> Chart:
    ranks = loaded.frames["ranks"]
    agreement = board_agreement(ranks).dropna(subset=["mean_kendall_tau"]).reset_index(drop=True)
    if agreement.empty:
        return empty_chart("gos_board_agreement", "No board was ranked completely by two or more interactions.")
    labels = _board_label(agreement["board_id"])
    figure = go.Figure()
    groups = np.arange(len(agreement)).reshape(-1, 1)  # a bar's group: its board's row in ``agreement``
    for index, (column, name) in enumerate((("mean_kendall_tau", "Kendall tau"), ("mean_spearman_rho", "Spearman rho"),
                                            ("kendall_w", "Kendall W"))):
        figure.add_trace(go.Bar(x=labels, y=agreement[column], name=name, marker={"color": PALETTE[index]},
                                customdata=groups, hovertemplate="%{x}: " + name + " %{y:.2f}<extra></extra>"))
    style(figure, x="board", y="agreement between its rankings")
    figure.update_layout(barmode="group")
    figure.update_yaxes(range=[-1, 1])
    tau, rho = agreement["mean_kendall_tau"].mean(), agreement["mean_spearman_rho"].mean()
    w = agreement["kendall_w"].dropna()
    w_text = ("no Kendall's W (no board was ranked completely twice)" if w.empty else f"mean Kendall's W {w.mean():.2f}"
              + ("" if len(w) == len(agreement) else f" over the {count_phrase(len(w), 'board')} ranked completely twice"))
    caption = (f"Agreement between the independent rankings of each board (mean pairwise Kendall tau {tau:.2f}, "
               f"Spearman rho {rho:.2f}, and {w_text}) over {count_phrase(len(agreement), 'board')} ranked by "
               f"{count_phrase(_interactions(ranks), 'interaction')}. Each pair of plays is compared on the images both "
               f"ranked (Kendall tau-b, Spearman rho), as on the replay; Kendall's W uses the complete rankings.")
    plays = ranks.groupby(["board_id", "interaction_id", "round"], as_index=False).agg(ranked=("rank", "size"))
    plays = plays[plays["board_id"].isin(agreement["board_id"])]
    drill = plays.rename(columns={"interaction_id": "dialog_id"})
    drill["group"] = drill["board_id"].map({b: i for i, b in enumerate(agreement["board_id"])}).astype("int64")
    return Chart("gos_board_agreement", figure, agreement, caption, drill=drill)


def rank_sum_chart(loaded: LoadedCorpus) -> Chart:
    ranks = loaded.frames["ranks"]
    if ranks.empty:
        return empty_chart("gos_rank_sums", "No image was ranked.")
    sums = rank_sums(ranks)
    sums["board"] = _board_label(sums["board_id"])
    ordered = sums.sort_values(["board_id", "rank_sum", "image_id"]).copy()
    ordered["slot"] = ordered.groupby("board_id").cumcount() + 1
    z = ordered.pivot(index="board", columns="slot", values="rank_sum")
    from corpora.gos.data.view import image_short_labels

    labels = image_short_labels(loaded)  # the label the replay's tiles show
    ordered["image"] = ordered["image_id"].map(lambda i: labels.get(i, i))
    text = ordered.pivot(index="board", columns="slot", values="image")
    figure = go.Figure(go.Heatmap(
        z=z.to_numpy(), x=[str(c) for c in z.columns], y=list(z.index), text=text.to_numpy(),
        texttemplate="%{z}", colorscale="Blues_r", colorbar={"title": "rank sum"}, hoverinfo="skip"))
    # A heatmap cell cannot be selected in plotly, so each cell also has a (nearly invisible) marker that can:
    # a click on a cell selects it, and its customdata is the cell's group in ``drill``.
    ordered = ordered.reset_index(drop=True)
    figure.add_trace(go.Scatter(
        x=ordered["slot"].astype(str), y=ordered["board"], mode="markers", text=ordered["image"],
        customdata=np.column_stack([np.arange(len(ordered)), ordered["rank_sum"].to_numpy()]),
        marker={"symbol": "square", "size": 18, "opacity": 0.01, "color": "#000"},
        selected={"marker": {"opacity": 0.35}}, unselected={"marker": {"opacity": 0.01}}, showlegend=False,
        hovertemplate="%{y}, image %{text}<br>rank sum %{customdata[1]}<extra></extra>"))
    style(figure, x="images of the board, from lowest rank sum (most suitable) to highest", y="board",
          height=max(PLOT_HEIGHT, 24 * len(z) + 80), legend=False)
    figure.update_yaxes(autorange="reversed")
    plays = int(sums["plays"].max())
    caption = (f"Rank sums per image over the {plays} plays of each board (perfect agreement gives "
               f"{plays}, {2 * plays}, … {BOARD_SIZE * plays}) for {count_phrase(sums['board_id'].nunique(), 'board')} "
               f"and {count_phrase(_interactions(ranks), 'interaction')}. A cell lists the rounds that ranked its image.")
    cells = ordered[["board_id", "image_id", "image"]].assign(group=np.arange(len(ordered), dtype=np.int64))
    drill = ranks[["interaction_id", "round", "board_id", "image_id", "rank"]].merge(cells, on=["board_id", "image_id"])
    drill = drill.rename(columns={"interaction_id": "dialog_id"})[["dialog_id", "round", "board_id", "image", "rank", "group"]]
    return Chart("gos_rank_sums", figure, sums.drop(columns=["board"]), caption,
                 drill=drill.sort_values(["group", "dialog_id", "round"], ignore_index=True))


# ---------------------------------------------------------------------------------------------------
# Do messages refer to the image ranked next?


def next_rank_references(messages: pd.DataFrame, ranks: pd.DataFrame, board_size: int = BOARD_SIZE) -> pd.DataFrame:
    """Per in-round message that refers to at least one image and is followed by a rank in its round:
    whether one of its images is the next one ranked (``hit``) and the chance of that if the next rank
    were drawn uniformly from the images still unranked (``chance`` = referred unranked / unranked)."""
    columns = ["interaction_id", "round", "message_index", "timestamp", "n_images", "next_rank", "hit", "chance"]
    refs = messages.reset_index(drop=True)
    refs = refs.assign(message_index=np.arange(len(refs)), n_images=refs["image_ids"].map(len))
    refs = refs[(refs["n_images"] > 0) & refs["in_round"].astype(bool)]
    if refs.empty or ranks.empty:
        return pd.DataFrame(columns=columns)
    keys = ["interaction_id", "round"]
    ordered_ranks = ranks[keys + ["timestamp", "rank"]].sort_values("timestamp")
    nexts = pd.merge_asof(refs[keys + ["message_index", "timestamp", "n_images"]].sort_values("timestamp"),
                          ordered_ranks.rename(columns={"rank": "next_rank"}), on="timestamp", by=keys,
                          direction="forward", allow_exact_matches=False).dropna(subset=["next_rank"])
    nexts["next_rank"] = nexts["next_rank"].astype("int64")
    exploded = refs[["message_index", "interaction_id", "round", "image_ids"]].explode("image_ids")
    exploded = exploded.rename(columns={"image_ids": "image_id"}).drop_duplicates(["message_index", "image_id"])
    exploded = exploded.merge(ranks[keys + ["image_id", "rank"]], on=keys + ["image_id"], how="left")
    exploded = exploded.merge(nexts[["message_index", "next_rank"]], on="message_index", how="inner")
    # An image never ranked in the round counts as unranked (it could have been next).
    unranked = exploded["rank"].isna() | (exploded["rank"] >= exploded["next_rank"])
    exploded["is_next"] = exploded["rank"] == exploded["next_rank"]
    exploded["unranked"] = unranked
    per_message = exploded.groupby("message_index").agg(hit=("is_next", "any"), referred_unranked=("unranked", "sum"))
    result = nexts.merge(per_message, on="message_index", how="left")
    result["hit"] = result["hit"].fillna(False).astype(bool)
    remaining = (board_size - (result["next_rank"] - 1)).clip(lower=1)
    result["chance"] = (result["referred_unranked"].fillna(0) / remaining).clip(upper=1.0)
    return result[columns].sort_values("message_index", ignore_index=True)


def next_rank_reference_stats(references: pd.DataFrame) -> pd.DataFrame:
    """Hit rate and chance rate per round number, plus an 'all' row."""
    rows = []
    for label, group in [("all", references)] + [(str(r), g) for r, g in references.groupby("round")]:
        hit = mean_ci(group["hit"].astype(float), method="wilson")  # a share: inside [0, 1]
        rows.append({"round": label, "messages": hit.n, "hit_rate": hit.mean, "hit_low": hit.low,
                     "hit_high": hit.high, "chance_rate": float(group["chance"].mean()) if len(group) else np.nan})
    return pd.DataFrame(rows)


def next_rank_reference_chart(loaded: LoadedCorpus) -> Chart:
    frames = loaded.frames
    references = next_rank_references(frames["messages"], frames["ranks"])
    if references.empty:
        return empty_chart("gos_next_rank_references", "No in-round message refers to an image before a rank.")
    stats = next_rank_reference_stats(references)
    groups = np.array([0 if r == "all" else int(r) for r in stats["round"]], dtype="int64")  # "all" = 0
    figure = go.Figure()
    figure.add_trace(go.Bar(
        x=stats["round"], y=stats["hit_rate"] * 100, name="refers to the next ranked image", marker={"color": PALETTE[0]},
        error_y=ci_error_bars(stats["hit_rate"] * 100, stats["hit_low"] * 100, stats["hit_high"] * 100),
        customdata=np.column_stack([groups, stats["messages"].to_numpy()]),
        hovertemplate="round %{x}: %{y:.1f}% of %{customdata[1]} messages<extra></extra>"))
    figure.add_trace(go.Bar(x=stats["round"], y=stats["chance_rate"] * 100, name="chance", marker={"color": "#BABABA"},
                            customdata=groups.reshape(-1, 1), hovertemplate="round %{x}: chance %{y:.1f}%<extra></extra>"))
    style(figure, x="round number", y="% of messages (95% CI)")
    figure.update_layout(barmode="group")
    figure.update_xaxes(type="category")  # "all" next to "1".."4"
    overall = stats.iloc[0]
    caption = (f"{overall['hit_rate']:.0%} of {int(overall['messages']):,} in-round messages that refer to images "
               f"name the image the pair ranks next (chance {overall['chance_rate']:.0%}), over "
               f"{count_phrase(_interactions(references), 'interaction')}. "
               f"{interval_note('wilson')}")
    per_round = references.groupby(["interaction_id", "round"], as_index=False).agg(
        messages=("hit", "size"), refer_to_next=("hit", "sum"))
    drill = per_round.rename(columns={"interaction_id": "dialog_id"})
    drill = pd.concat([drill.assign(group=drill["round"].astype("int64")), drill.assign(group=0)], ignore_index=True)
    return Chart("gos_next_rank_references", figure, stats, caption, drill=drill)


# ---------------------------------------------------------------------------------------------------
# Survey


def likert_counts(survey: pd.DataFrame, questions=LIKERT_QUESTIONS) -> pd.DataFrame:
    """Answer counts per Likert question and option 1..5 (0 where nobody chose it)."""
    answers = survey[survey["question_id"].isin(questions) & survey["option_number"].notna()]
    counts = answers.groupby(["question_id", "option_number"]).size()
    index = pd.MultiIndex.from_product([list(questions), list(LIKERT_LABELS)], names=["question_id", "option_number"])
    table = counts.reindex(index, fill_value=0).rename("answers").reset_index()
    table["option_number"] = table["option_number"].astype("int64")
    table["option"] = table["option_number"].map(LIKERT_LABELS)
    texts = answers.drop_duplicates("question_id").set_index("question_id")["question"]
    table["question"] = table["question_id"].map(texts).fillna("")
    return table


def survey_chart(loaded: LoadedCorpus) -> Chart:
    survey = loaded.frames.get("survey")
    if survey is None or survey.empty:
        return empty_chart("gos_survey", "The survey files are not part of this source.")
    table = likert_counts(survey)
    present = table.groupby("question_id")["answers"].sum()
    table = table[table["question_id"].isin(present[present > 0].index)]
    if table.empty:
        return empty_chart("gos_survey", "No Likert answers (q1–q3) in the survey.")
    labels = {q: f"{q}: {text}" if text else q for q, text in table.drop_duplicates("question_id")[["question_id", "question"]].itertuples(index=False)}
    figure = go.Figure()
    for number, label in LIKERT_LABELS.items():
        part = table[table["option_number"] == number]
        figure.add_trace(go.Bar(y=part["question_id"].map(labels), x=part["answers"], name=label, orientation="h",
                                marker={"color": LIKERT_COLOURS[number]},
                                hovertemplate="%{y}<br>" + label + ": %{x}<extra></extra>"))
    style(figure, x="answers", y="", height=260)
    figure.update_layout(barmode="stack")
    figure.update_yaxes(autorange="reversed")
    answers = survey[survey["question_id"].isin(LIKERT_QUESTIONS) & survey["option_number"].notna()]
    respondents = answers[["interaction_id", "username"]].drop_duplicates()
    caption = (f"Post-game survey, Likert questions q1–q3: {count_phrase(len(respondents), 'questionnaire')} "
               f"from {count_phrase(respondents['username'].nunique(), 'player')} after "
               f"{count_phrase(respondents['interaction_id'].nunique(), 'interaction')}.")
    return Chart("gos_survey", figure, table, caption)


# -- the published mention layer ----------------------------------------------------------------------------------

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
