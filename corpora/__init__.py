"""The corpora that come with the dashboard, each one installable unit laid out exactly as a corpus plugin is
(docs/architecture.md, "Writing a corpus plugin"): ``<corpus>/data`` is the corpus package of the corpus contract
(reading, frames, scoring, layers, figures; pure Python, no Streamlit) and ``<corpus>/views`` its views (the Replay
section, state details, run panels, its analysis page). Both are found through entry points, as a plugin's are;
each imports only the public plugin API (``dialogue_dashboard.plugin``) and its own corpus."""
