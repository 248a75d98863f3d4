"""What takes a view out of the app: the HTML replay, LaTeX and chart downloads."""
