"""The public API of a corpus plugin's views (its Replay section, run panels, analysis page...): the Streamlit
building blocks the dashboard offers a corpus, and ``CorpusViews``, which a views module's ``VIEWS`` is. A plugin
declares its views in the entry point group ``dialogue_dashboard.views`` under its corpus's name. These names are
stable, as those of ``dialogue_dashboard.plugin`` are (which is the data part's API, and imports no Streamlit)."""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from data_access.corpus import Corpus as Corpus
    from data_access.player import Picture as Picture
    from data_access.player import PlayerDialog as PlayerDialog
    from data_access.player import PlayerStep as PlayerStep
    from data_access.player import TimelineEntry as TimelineEntry
    from data_access.player import transcript_lines as transcript_lines
    from data_access.snapshots import dialog_row as dialog_row
    from data_access.snapshots import source_facts as source_facts
    from data_access.types import LoadedCorpus as LoadedCorpus
    from ui.analysis import charts as charts
    from ui.analysis.layers import layer_ready as layer_ready
    from ui.analysis.layers import linked_layer as linked_layer
    from ui.analysis.layers import loaded_layer as loaded_layer
    from ui.assets import packaged_asset as packaged_asset
    from ui.cached import corpus_ready as corpus_ready
    from ui.cached import derived as derived
    from ui.cached import layer_derived as layer_derived
    from ui.cached import loaded_corpus as loaded_corpus
    from ui.glossary import markdown_table as markdown_table
    from ui.play.component import play_media_url as play_media_url
    from ui.replay.highlight import marked_html as marked_html
    from ui.replay.highlight import requested_highlight as requested_highlight
    from ui.replay.picker import dialog_picker as dialog_picker
    from ui.replay.prefetch import prefetch_neighbours as prefetch_neighbours
    from ui.replay.state import step_lines as step_lines
    from ui.replay.step_player import player_step as player_step
    from ui.replay.step_player import show_player as show_player
    from ui.replay.transcript import LEADING_ROLES as LEADING_ROLES
    from ui.runs.panels import number as number
    from ui.runs.picker import run_link as run_link
    from ui.share.downloads import latex_table_download as latex_table_download
    from ui.shell.corpus_views import CorpusViews as CorpusViews
    from ui.shell.corpus_views import DurationsView as DurationsView
    from ui.shell.corpus_views import LiveView as LiveView
    from ui.shell.corpus_views import PlayView as PlayView
    from ui.shell.corpus_views import lazy as lazy
    from ui.shell.run_mark import stop_run as stop_run
    from ui.shell.url_state import served as served
    from ui.shell.url_state import served_links as served_links
    from ui.shell.url_state import url_toggle as url_toggle
    from ui.widgets import md_escape as md_escape
    from ui.widgets import query_param as query_param
    from ui.widgets import stepper as stepper

# public name -> (the module that defines it, its name there)
NAMES: dict[str, tuple[str, str]] = {
    "Corpus": ("data_access.corpus", "Corpus"),
    "LoadedCorpus": ("data_access.types", "LoadedCorpus"),
    "Picture": ("data_access.player", "Picture"),
    "PlayerDialog": ("data_access.player", "PlayerDialog"),
    "PlayerStep": ("data_access.player", "PlayerStep"),
    "TimelineEntry": ("data_access.player", "TimelineEntry"),
    "transcript_lines": ("data_access.player", "transcript_lines"),
    "dialog_row": ("data_access.snapshots", "dialog_row"),
    "source_facts": ("data_access.snapshots", "source_facts"),
    "CorpusViews": ("ui.shell.corpus_views", "CorpusViews"),
    "DurationsView": ("ui.shell.corpus_views", "DurationsView"),
    "PlayView": ("ui.shell.corpus_views", "PlayView"),
    "LiveView": ("ui.shell.corpus_views", "LiveView"),
    "play_media_url": ("ui.play.component", "play_media_url"),
    "packaged_asset": ("ui.assets", "packaged_asset"),
    "lazy": ("ui.shell.corpus_views", "lazy"),
    "stop_run": ("ui.shell.run_mark", "stop_run"),
    "served": ("ui.shell.url_state", "served"),
    "served_links": ("ui.shell.url_state", "served_links"),
    "url_toggle": ("ui.shell.url_state", "url_toggle"),
    "corpus_ready": ("ui.cached", "corpus_ready"),
    "derived": ("ui.cached", "derived"),
    "layer_derived": ("ui.cached", "layer_derived"),
    "loaded_corpus": ("ui.cached", "loaded_corpus"),
    "charts": ("ui.analysis", "charts"),
    "layer_ready": ("ui.analysis.layers", "layer_ready"),
    "linked_layer": ("ui.analysis.layers", "linked_layer"),
    "loaded_layer": ("ui.analysis.layers", "loaded_layer"),
    "markdown_table": ("ui.glossary", "markdown_table"),
    "md_escape": ("ui.widgets", "md_escape"),
    "query_param": ("ui.widgets", "query_param"),
    "stepper": ("ui.widgets", "stepper"),
    "marked_html": ("ui.replay.highlight", "marked_html"),
    "requested_highlight": ("ui.replay.highlight", "requested_highlight"),
    "dialog_picker": ("ui.replay.picker", "dialog_picker"),
    "prefetch_neighbours": ("ui.replay.prefetch", "prefetch_neighbours"),
    "player_step": ("ui.replay.step_player", "player_step"),
    "show_player": ("ui.replay.step_player", "show_player"),
    "LEADING_ROLES": ("ui.replay.transcript", "LEADING_ROLES"),
    "step_lines": ("ui.replay.state", "step_lines"),
    "number": ("ui.runs.panels", "number"),
    "run_link": ("ui.runs.picker", "run_link"),
    "latex_table_download": ("ui.share.downloads", "latex_table_download"),
}
__all__ = ["Corpus", "CorpusViews", "DurationsView", "LEADING_ROLES", "LiveView", "LoadedCorpus", "Picture", "PlayView",
           "PlayerDialog", "PlayerStep", "TimelineEntry", "charts", "corpus_ready", "derived", "dialog_picker", "dialog_row",
           "latex_table_download", "layer_derived", "layer_ready", "lazy", "linked_layer", "loaded_corpus",
           "loaded_layer", "markdown_table", "marked_html", "md_escape", "number", "packaged_asset", "play_media_url", "player_step",
           "prefetch_neighbours", "query_param", "requested_highlight", "run_link", "served", "served_links",
           "show_player", "source_facts", "step_lines", "stepper", "stop_run", "transcript_lines", "url_toggle"]  # the keys of NAMES (tests/unit/test_plugin_api.py)


def __getattr__(name: str) -> Any:
    """Each name is imported when first used: a corpus package that needs the run-line reader does not
    import the charts (plotly)."""
    if name not in NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = NAMES[name]
    imported = importlib.import_module(module)
    if not hasattr(imported, attribute):  # a module of the package (``charts``, ``readahead``)
        importlib.import_module(f"{module}.{attribute}")
    value = getattr(imported, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *NAMES])
