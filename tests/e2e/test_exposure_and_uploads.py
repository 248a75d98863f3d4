"""The served app is safe by default (the issue "Trust for a lab deployment", items 3 and 4): ``server.py`` as
``make run`` starts it listens on the loopback interface only and says how to open it to a network; and
Streamlit's upload endpoint keeps at most the session's budget of uploads, whatever a client PUTs into its
own session (``ui/server/upload_guard.py``)."""
from __future__ import annotations

import ipaddress
import re
from pathlib import Path

import pytest

from .conftest import AppServer, wait_for_app

pytestmark = pytest.mark.e2e

MB = 1 << 20


def _listening_addresses(port: int) -> list[ipaddress._BaseAddress]:
    """The local addresses the kernel has a listening TCP socket on for ``port`` (``/proc/net/tcp``, ``tcp6``)."""
    found = []
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        path = Path(table)
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            local, state = fields[1], fields[3]
            address, _, hex_port = local.partition(":")
            if state != "0A" or int(hex_port, 16) != port:
                continue
            raw = bytes.fromhex(address)
            # each 32-bit word is in the host's (little-endian) order
            packed = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
            found.append(ipaddress.ip_address(packed if width == 8 else packed))
    return found


def test_the_app_as_make_run_starts_it_listens_on_loopback_only_and_says_how_to_open_it(tmp_path):
    server = AppServer(tmp_path, {"STREAMLIT_SERVER_ADDRESS": None})  # make run's environment: no address given
    try:
        addresses = _listening_addresses(server.port)
        assert addresses, "no listening socket found for the server's port"
        assert all(address.is_loopback for address in addresses), addresses
        log = (tmp_path / "streamlit.log").read_text(errors="replace")
        assert "listening on localhost only" in log
        assert "STREAMLIT_SERVER_ADDRESS=0.0.0.0" in log and "sign-in" in log
    finally:
        server.stop()


@pytest.fixture
def tight_app(tmp_path):
    """The app with small upload budgets, so that the test sends megabytes rather than the default's hundreds; one
    per test, since a closed page's session (and its uploads) outlives it for a while."""
    server = AppServer(tmp_path,
                       {"DIALOGUE_UPLOAD_SESSION_MB": "4", "DIALOGUE_UPLOAD_TOTAL_MB": "6"})
    yield server
    server.stop()


def open_session(page, url: str) -> str:
    """Open the app in ``page`` and return its Streamlit session id (from the server's first message)."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    ids: list[str] = []

    def frames(socket):
        def on_frame(payload):
            if isinstance(payload, (bytes, bytearray)):
                message = ForwardMsg()
                try:
                    message.ParseFromString(bytes(payload))
                except Exception:  # noqa: BLE001 - another kind of frame
                    return
                if message.HasField("new_session") and message.new_session.initialize.session_id:
                    ids.append(message.new_session.initialize.session_id)
        socket.on("framereceived", on_frame)

    page.on("websocket", frames)
    page.goto(url)
    wait_for_app(page)
    assert ids, "the page's session id was not seen"
    return ids[-1]


def put_upload(page, base: str, session: str, file_id: str, size: int):
    """A PUT to Streamlit's upload endpoint from the page's own browser context (its cookies and XSRF token)."""
    cookies = {c["name"]: c["value"] for c in page.context.cookies()}
    return page.request.put(f"{base}/_stcore/upload_file/{session}/{file_id}",
                            multipart={"file": {"name": f"{file_id}.jsonl", "mimeType": "application/octet-stream",
                                                "buffer": b"x" * size}},
                            headers={"X-Xsrftoken": cookies.get("_streamlit_xsrf", "")}, fail_on_status_code=False)


def test_a_session_keeps_at_most_its_upload_budget(tight_app, page):
    session = open_session(page, tight_app.url)
    first = put_upload(page, tight_app.url, session, "id-1", 3 * MB)
    assert first.status == 204, first.text()
    # the attack, scaled down: more PUTs of made-up file ids into the same session
    later = [put_upload(page, tight_app.url, session, f"id-{n}", 3 * MB) for n in range(2, 5)]
    assert [response.status for response in later] == [413, 413, 413]
    assert re.search(r"at most 4 MB", later[0].text())
    # replacing the file it holds is within the budget
    assert put_upload(page, tight_app.url, session, "id-1", 3 * MB).status == 204


def test_every_session_together_keeps_at_most_the_total_budget(tight_app, browser):
    pages = [browser.new_context().new_page() for _ in range(3)]
    try:
        sessions = [open_session(p, tight_app.url) for p in pages]
        statuses = [put_upload(p, tight_app.url, s, "one", int(2.5 * MB)).status for p, s in zip(pages, sessions)]
        assert statuses[:2] == [204, 204] and statuses[2] == 413
    finally:
        for p in pages:
            p.context.close()
