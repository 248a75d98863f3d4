"""The server around the app: the ASGI middleware ``server.py`` serves the app with (the index page that tells a
deep link where the server is, the upload guard), whether the server can be reached from other machines, and the
imports warmed as it starts."""
