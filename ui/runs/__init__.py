"""Model runs in the app: the run picker and the Replay's run panels, the Runs page's sections and leaderboard,
worst cases first, and the Data page's list of run files."""
