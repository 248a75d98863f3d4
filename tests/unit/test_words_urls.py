"""The sub-corpus filters and a concordance's definition survive the URL: what the pages write is what the
Replay's "next hit" reads back, and values a link cannot mean are ignored."""
from urllib.parse import parse_qsl

import pytest

from data_access.words.subcorpus import Filters
from ui.words.concordance import HitList
from ui.words.index import filter_params, filters_from_params

EVERY = Filters(corpora=("codraw", "gos"), roles=("Drawer", "Player A"), splits=("train",), score_min=4.0, score_max=5.0,
                gos_lock="with", build="not exact", cr="CR", mention="several", code_label="CR", code_coder="gold",
                code_book="clarification")


@pytest.mark.parametrize("filters", [Filters(), Filters(roles=("Drawer",)), EVERY])
@pytest.mark.parametrize("prefix", ["", "b_"])
def test_filters_round_trip_through_url_parameters(filters, prefix):
    params = filter_params(filters, prefix)
    assert all(name.startswith(prefix) for name in params)
    assert filters_from_params(params, prefix) == filters


def test_values_a_link_cannot_mean_are_ignored():
    params = {"in": "codraw,nosuch", "score": "9–10", "lock": "maybe", "build": "exact", "cr": "<b>"}
    assert filters_from_params(params) == Filters(corpora=("codraw",), build="exact")


@pytest.mark.parametrize("hit_list", [
    HitList("tree", ("R1", "L1"), Filters(roles=("Drawer",))),
    HitList('"on the left"', (), EVERY),
    HitList("t.e", ("R2",), Filters(), mode="regex"),
    HitList("tree", ("R1",), Filters(), case_sensitive=True, whole_word=False),
])
def test_a_hit_list_round_trips_through_its_link(hit_list):
    assert HitList.decode(hit_list.encode()) == hit_list
    assert dict(parse_qsl(hit_list.encode()))["q"] == hit_list.query
    assert hit_list.by_words == (hit_list.mode == "words" and hit_list.whole_word and not hit_list.case_sensitive)


def test_a_link_without_a_query_is_no_hit_list():
    assert HitList.decode("") is None and HitList.decode("s=R1&role=Drawer") is None
    assert HitList.decode("q=x&s=R9,R1").keys == ("R1",)
