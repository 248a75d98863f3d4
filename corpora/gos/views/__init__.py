"""The views of A Game Of Sorts (Willemsen et al., LREC 2022): its Replay section (``replay``), the compact replay state of Compare and Present (``state``), the placeholder
note of its images (``images``), its model-run panels (``run_panels``), the published mentions layer's parts
(``layers``), its analysis page with its part of the Durations page (``analysis``) and its game on the Play page
(``play``: one player's board, LOCK). Found through the entry point group
``dialogue_dashboard.views``; each part is imported when first called (``lazy``)."""
from dialogue_dashboard.plugin.views import CorpusViews, DurationsView, LiveView, PlayView, lazy

HERE = __name__

VIEWS = CorpusViews(
    replay_section=lazy(f"{HERE}.replay", "show"),
    state_details=lazy(f"{HERE}.state", "details"),
    prefetch_details=lazy(f"{HERE}.state", "prefetch"),
    dialog_lines=lazy(f"{HERE}.state", "lines"),
    data_note=lazy(f"{HERE}.images", "placeholder_note"),
    search_extra=lazy(f"{HERE}.layers", "mention_search"),
    layer_report=lazy(f"{HERE}.layers", "layer_report"),
    layer_exports=lazy(f"{HERE}.layers", "layer_exports"),
    run_panel=lazy(f"{HERE}.run_panels", "panel"),
    run_side_by_side=lazy(f"{HERE}.run_panels", "side_by_side"),
    run_pictures=lazy(f"{HERE}.run_panels", "pictures"),
    analysis_page="pages/gos_outcomes.py",
    analysis=lazy(f"{HERE}.analysis", "show"),
    durations=DurationsView(tab="A Game Of Sorts", charts=lazy(f"{HERE}.analysis", "duration_charts"),
                            show=lazy(f"{HERE}.analysis", "show_durations")),
    play=PlayView(script=lazy(f"{HERE}.play", "script"), style=lazy(f"{HERE}.play", "style"),
                  setup=lazy(f"{HERE}.play", "setup"), done_label="LOCK"),
    live=LiveView(script=lazy(f"{HERE}.live", "script"), style=lazy(f"{HERE}.live", "style"),
                  setup=lazy(f"{HERE}.live", "setup")),
)
