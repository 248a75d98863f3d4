"""Durations: how long the dialogues took, per corpus (CoDraw session durations when the source's stat section has
them, A Game Of Sorts round durations, time to each rank and interaction lengths, Minecraft game durations). The page
opens on a summary (each chart's finding); each corpus's charts are a tab, its views' part of the page."""
from ui.analysis.durations import durations_page
from ui.shell.router import ensure_routed

ensure_routed()
durations_page()
