"""The Browse page's parts: the range filters kept in the URL and the columns of every loaded run and code."""
