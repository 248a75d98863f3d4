"""Whether this server can be reached from other machines: Streamlit's ``server.address`` is not a loopback
address. ``make run`` and ``dialogue-dashboard serve`` listen on ``localhost`` unless told otherwise
(``.streamlit/config.toml``, ``STREAMLIT_SERVER_ADDRESS``, ``--host``). Without sign-in the local user may do
everything, so ui/shell/auth.py asks this and makes that user read only beyond localhost
(``DIALOGUE_WRITES_WITHOUT_SIGN_IN=1`` aside), and the server says so as it starts (``server.py``;
docs/deployment.md, "Serving the app")."""
from __future__ import annotations

import ipaddress

from streamlit import config

# Names that resolve to the loopback interface without asking a resolver (a name is not looked up: one that
# is not listed here counts as reachable from elsewhere).
_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}


def is_loopback(address: str) -> bool:
    """Whether ``address`` (a host name or IP, possibly ``[...]``-bracketed) names this machine's loopback only.
    Empty means every interface."""
    host = address.strip().strip("[]").rstrip(".").lower()
    if not host:
        return False
    if host in _LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def served_beyond_localhost() -> bool:
    """True when the configured ``server.address`` is not a loopback address (unset: every interface)."""
    return not is_loopback(str(config.get_option("server.address") or ""))


HOW_TO_OPEN = ("To open it to a network, turn sign-in on first (an [auth] table in .streamlit/secrets.toml or "
               "STREAMLIT_SECRETS_FILES; docs/deployment.md, \"Sign-in and roles\"), then listen on every interface: "
               "STREAMLIT_SERVER_ADDRESS=0.0.0.0 make run, or dialogue-dashboard serve --host 0.0.0.0.")


def startup_notice(address: str, sign_in: bool) -> tuple[str, bool]:
    """What the server says as it starts about who can reach it, and whether that is a warning."""
    shown = address or "every interface"
    if is_loopback(address):
        return f"dialogue-dashboard: listening on {shown} only, reachable from this machine alone. {HOW_TO_OPEN}", False
    if sign_in:
        return f"dialogue-dashboard: listening on {shown}, with sign-in: only people who sign in reach a page.", False
    return (f"WARNING: dialogue-dashboard is listening on {shown} WITHOUT sign-in: anyone who can reach this machine "
            "can read every corpus (nothing is written: the local user is read only here, unless "
            "DIALOGUE_WRITES_WITHOUT_SIGN_IN=1 lets everyone who reaches it write). "
            "Listen on localhost (STREAMLIT_SERVER_ADDRESS=localhost, or --host localhost) or turn sign-in on "
            "(docs/deployment.md, \"Sign-in and roles\")."), True
