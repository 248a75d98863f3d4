"""Browse (issue 11, item 8): range filters on every numeric column kept in the URL, more than 10 rows,
the natural order (split, then id in numeric order) and column help."""
from ui.browse.filters import table_height

from .conftest import open_page


def test_a_range_on_a_score_column_filters_and_lives_in_the_url():
    scores = open_page("browse", corpus="codraw").dataframe[0].value["final_score"].dropna().sort_values()
    low, high = round(float(scores.iloc[len(scores) // 4]), 2), round(float(scores.iloc[3 * len(scores) // 4]), 2)
    at = open_page("browse", corpus="codraw", final_score=f"{low}..{high}")
    table = at.dataframe[0].value
    assert 0 < len(table) < len(scores) and table["final_score"].between(low, high).all()
    slider = at.slider(key="browse_range_codraw_final_score")
    assert slider.value == (low, high)
    slider.set_value((high, slider.max)).run()
    assert at.query_params["final_score"] == f"{high:g}.."
    assert (at.dataframe[0].value["final_score"] >= high).all()


def test_every_numeric_column_has_a_range_slider():
    at = open_page("browse", corpus="codraw")
    keys = {s.key for s in at.slider}
    for column in ("n_steps", "n_utterances", "peek_round", "final_score", "final_score_original", "score_before_peek"):
        assert f"browse_range_codraw_{column}" in keys, column
    at = open_page("browse", corpus="minecraft")
    assert {"browse_range_minecraft_placements", "browse_range_minecraft_outcome_f1"} <= {s.key for s in at.slider}


def test_more_than_ten_rows_in_natural_order_with_column_help():
    at = open_page("browse", corpus="codraw")
    element = at.dataframe[0]
    assert table_height(len(element.value)) > 11 * 35  # the default shows 10 rows (the browser test counts them)
    ids = element.value["dialog_id"].tolist()
    splits = element.value["split"].tolist()
    order = {"train": 0, "val": 1, "test": 2}
    assert [order[s] for s in splits] == sorted(order[s] for s in splits)
    numbers = [int(i.split("_")[1]) for i, s in zip(ids, splits) if s == "train"]
    assert numbers == sorted(numbers)
    config = element.proto.columns
    assert "peeked" in config and "help" in config  # column help travels in the column configuration


def test_the_split_filter_is_pills_kept_in_the_url():
    at = open_page("browse", corpus="codraw", split="test")
    pills = at.button_group(key="browse_split_codraw")
    assert pills.value == ["test"]
    table = at.dataframe[0].value
    assert len(table) > 0 and set(table["split"]) == {"test"}
    pills.set_value(["test", "val"]).run()
    assert at.query_params["split"] == "val,test"
    assert set(at.dataframe[0].value["split"]) == {"val", "test"}
    at.button_group(key="browse_split_codraw").set_value(["train", "val", "test"]).run()
    assert "split" not in at.query_params  # every split: no filter, nothing in the URL
    assert len(at.dataframe[0].value) == len(open_page("browse", corpus="codraw").dataframe[0].value)


def test_a_corpus_of_one_split_shows_no_split_filter():
    at = open_page("browse", corpus="gos", split="test")
    assert not [b for b in at.button_group if b.key == "browse_split_gos"]
    assert "split" not in at.query_params and len(at.dataframe[0].value) > 0


def test_the_id_filter_and_the_notes_toggle_belong_to_their_corpus_and_follow_the_url():
    at = open_page("browse", corpus="codraw", q="0066", noted="0")
    def box():
        return next(t for t in at.text_input if t.label == "Dialog id contains")

    assert box().value == "0066" and at.dataframe[0].value["dialog_id"].str.contains("0066").all()
    at.segmented_control(key="browse_corpus").set_value("minecraft").run()
    assert box().value == "" and "q" not in at.query_params
    assert len(at.dataframe[0].value) > 1  # every Minecraft game, not those whose id contains "0066"
    at.query_params.clear()
    at.query_params.update({"corpus": "codraw", "q": "00", "noted": "1"})  # Back, or a link, to a filtered view
    at.run()
    assert box().value == "00" and next(t for t in at.toggle if t.label == "Only with notes").value
    assert at.query_params["q"] == "00" and at.query_params["noted"] == "1"
