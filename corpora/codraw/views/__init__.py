"""The views of CoDraw (Kim et al., 2019): its Replay section (``replay``), the compact replay state of Compare and Present (``state``), its model-run panels
(``run_panels``), the published CR layer's parts (``layers``), its analysis page with its part of the Durations
page (``analysis``) and its game on the Play page (``play``: the Drawer's canvas and the clip-art palette). Found through the entry point group
``dialogue_dashboard.views``; each part is imported when first called (``lazy``)."""
from dialogue_dashboard.plugin.views import CorpusViews, DurationsView, LiveView, PlayView, lazy

HERE = __name__

VIEWS = CorpusViews(
    replay_section=lazy(f"{HERE}.replay", "show"),
    state_details=lazy(f"{HERE}.state", "details"),
    prefetch_details=lazy(f"{HERE}.state", "prefetch"),
    browse_filter=lazy(f"{HERE}.layers", "browse_cr_filter"),
    transcript_marks=lazy(f"{HERE}.layers", "transcript_marks"),
    slice_marks=lazy(f"{HERE}.layers", "slice_marks"),
    layer_report=lazy(f"{HERE}.layers", "layer_report"),
    layer_exports=lazy(f"{HERE}.layers", "layer_exports"),
    run_panel=lazy(f"{HERE}.run_panels", "panel"),
    run_side_by_side=lazy(f"{HERE}.run_panels", "side_by_side"),
    run_pictures=lazy(f"{HERE}.run_panels", "pictures"),
    analysis_page="pages/codraw_scores.py",
    analysis=lazy(f"{HERE}.analysis", "show"),
    durations=DurationsView(tab="CoDraw", charts=lazy(f"{HERE}.analysis", "duration_charts"),
                            show=lazy(f"{HERE}.analysis", "show_durations"), split_label="CoDraw splits",
                            summary_note=lazy(f"{HERE}.analysis", "duration_note")),
    play=PlayView(script=lazy(f"{HERE}.play", "script"), style=lazy(f"{HERE}.play", "style"),
                  setup=lazy(f"{HERE}.play", "setup"), done_label="Done with this round", reply=True),
    live=LiveView(script=lazy(f"{HERE}.live", "script"), style=lazy(f"{HERE}.live", "style"),
                  setup=lazy(f"{HERE}.live", "setup")),
)
