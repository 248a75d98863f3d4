"""The published layers in a real browser, on the demo corpora with their generated demo layers: a Game Of
Sorts message shows its mentions as highlighted spans (text escaped) and the Data page the alignment figures."""
from __future__ import annotations

import pytest

from .conftest import wait_for_app

pytestmark = pytest.mark.e2e


def _demo_layer(name: str, tmp_path_factory):
    from data_access.corpora import load_path
    from data_access.layers import LAYER_CORPUS
    from data_access.layers.load import demo_layer_path, load_layer

    cache = tmp_path_factory.mktemp(f"layer-{name}")
    corpus = load_path(LAYER_CORPUS[name], None, cache_root=cache)
    return load_layer(name, corpus, demo_layer_path(name, cache), True)


def test_gos_replay_highlights_mentions_and_stepping_keeps_them(demo_app, page, tmp_path_factory):
    layer = _demo_layer("gos-mentions", tmp_path_factory)
    row = layer.annotations.iloc[0]
    page.goto(f"{demo_app.url}/replay?corpus=gos&dialog={row['dialog_id']}&round={row['round']}&turn={row['turn']}")
    wait_for_app(page)
    marks = page.locator(".layer-mentions mark")
    marks.first.wait_for()
    assert row["text"] in marks.first.inner_text()
    assert page.locator(".layer-mentions li").count() == int(
        ((layer.annotations["dialog_id"] == row["dialog_id"]) & (layer.annotations["round"] == row["round"])
         & (layer.annotations["turn"] == row["turn"])).sum())
    # both players' boards (images stream in one by one: wait for the count, not the first)
    page.wait_for_function("() => document.querySelectorAll('[data-step-player][data-step] .sp-slot img').length >= 2",
                           timeout=30_000)
    page.get_by_text("Published mentions").click()  # off: the boards stay, the spans go
    wait_for_app(page)
    assert page.locator(".layer-mentions").count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0


def test_data_page_shows_the_alignment_figures(demo_app, page, tmp_path_factory):
    figures = _demo_layer("codraw-icr", tmp_path_factory).figures
    page.goto(f"{demo_app.url}/data")
    wait_for_app(page)
    page.get_by_text("Aligned uniquely").first.wait_for()

    def value(label: str) -> str:
        metric = page.locator('[data-testid="stMetric"]').filter(has=page.get_by_text(label, exact=True))
        return metric.locator('[data-testid="stMetricValue"]').inner_text().strip()

    assert value("Aligned uniquely") == f"{figures['aligned_unique']:,}"
    assert value("Aligned ambiguously") == f"{figures['aligned_ambiguous']:,}"
    assert value("Not aligned") == "1"


def test_the_data_page_makes_a_layer_export_when_it_is_clicked(demo_app, page, tmp_path_factory):
    """The Data page shows a layer's figures from its summary; its exports link the layer on the click."""
    import re

    from corpora.codraw.data import icr_layer as codraw_icr

    from .test_share_downloads import _download

    layer = _demo_layer("codraw-icr", tmp_path_factory)
    page.goto(f"{demo_app.url}/data")
    wait_for_app(page)
    tsv = _download(page, re.compile("Rows in the published layout")).path().read_text(encoding="utf-8")
    assert tsv == codraw_icr.to_tsv(layer.rows)
    assert page.locator('[data-testid="stException"]').count() == 0
