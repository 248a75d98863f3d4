"""Streamlit glue: cached wrappers around ``data_access`` and the widgets pages share."""
