"""The Data page's parts: where each corpus came from, how to cite it, its counts and skipped records."""
