"""Slices in the app (docs/slices.md): the URL's current slice on every page, the analysis pages on it, the saved
slices, the SQL console and the slice's exports."""
