"""The views of Minecraft Collaborative Building (Narayan-Chen et al., 2019): its Replay section (``replay``), the compact replay state of Compare and Present (``state``), its model-run panels
(``run_panels``), the download of its BAP samples (``export``), its analysis page with its part of the
Durations page (``analysis``) and its game on the Play page (``play``: the Builder's 3-D grid). Found through the entry point group
``dialogue_dashboard.views``; each part is imported when first called (``lazy``)."""
from dialogue_dashboard.plugin.views import CorpusViews, DurationsView, LiveView, PlayView, lazy

HERE = __name__

VIEWS = CorpusViews(
    replay_section=lazy(f"{HERE}.replay", "show"),
    state_details=lazy(f"{HERE}.state", "details"),
    prefetch_details=lazy(f"{HERE}.state", "prefetch"),
    browse_extra=lazy(f"{HERE}.export", "bap_samples_download"),
    run_panel=lazy(f"{HERE}.run_panels", "panel"),
    run_side_by_side=lazy(f"{HERE}.run_panels", "side_by_side"),
    run_pictures=lazy(f"{HERE}.run_panels", "pictures"),
    analysis_page="pages/minecraft_outcomes.py",
    analysis=lazy(f"{HERE}.analysis", "show"),
    durations=DurationsView(tab="Minecraft", charts=lazy(f"{HERE}.analysis", "duration_charts"),
                            show=lazy(f"{HERE}.analysis", "show_durations"), split_label="Minecraft splits"),
    play=PlayView(script=lazy(f"{HERE}.play", "script"), style=lazy(f"{HERE}.play", "style"),
                  done_label="Done with this instruction"),
    live=LiveView(script=lazy(f"{HERE}.live", "script"), style=lazy(f"{HERE}.live", "style"),
                  setup=lazy(f"{HERE}.live", "setup")),
)
