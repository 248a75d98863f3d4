"""The documented nginx in front of one app server (``deploy/nginx.conf``, Debian's nginx), over plain HTTP and over
TLS with a self-signed certificate: the headers a security review expects (framing, nosniff, HSTS and a Secure
route cookie over TLS), a link of 1,001 parameters reaching the app (which cuts it to 999 and says so), a longer
link than the proxy takes getting the documented page rather than a blank one, and the body limit that matches
the app's upload limit (the issue "Trust for a lab deployment", item 11)."""
from __future__ import annotations

import datetime
import http.client
import os
import ssl
import tomllib
from pathlib import Path

import pytest

from .conftest import AppServer, wait_for_app
from .test_two_servers import NGINX, Proxy

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
# One upload as Streamlit counts its body: server.maxUploadSize MB and 1 MB of multipart framing.
UPLOAD_REQUEST_BYTES = (tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["server"].get("maxUploadSize", 200) + 1) << 20


def _self_signed(folder):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=2)).sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


@pytest.fixture(scope="module")
def proxied(tmp_path_factory):
    if NGINX is None:
        if os.environ.get("DIALOGUE_REQUIRE_NGINX") == "1":
            pytest.fail("DIALOGUE_REQUIRE_NGINX=1 but nginx is not installed (apt-get install nginx)")
        pytest.skip("nginx is not installed (apt-get install nginx; .ci/run does)")
    base = tmp_path_factory.mktemp("proxied")
    (base / "app").mkdir()
    server = AppServer(base / "app")
    plain = Proxy(base / "plain", [server.port])
    tls = Proxy(base / "tls", [server.port], tls=_self_signed(base))
    yield {"plain": plain, "tls": tls, "server": server}
    tls.stop()
    plain.stop()
    server.stop()


def _request(proxy: Proxy, path: str, method: str = "GET", headers: dict | None = None):
    host, port = proxy.url.split("://", 1)[1].split(":")
    if proxy.url.startswith("https"):
        connection = http.client.HTTPSConnection(host, int(port), timeout=30, context=ssl._create_unverified_context())
    else:
        connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.request(method, path, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.headers, response.read().decode(errors="replace")
    finally:
        connection.close()


def test_plain_http_sends_the_framing_and_nosniff_headers_and_no_hsts(proxied):
    status, headers, _ = _request(proxied["plain"], "/_stcore/health")
    assert status == 200
    assert headers["X-Frame-Options"] == "SAMEORIGIN"
    assert "frame-ancestors 'self'" in headers["Content-Security-Policy"]
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert "Strict-Transport-Security" not in headers  # HSTS over plain HTTP would be ignored, and wrong
    route = [c for c in headers.get_all("Set-Cookie") if c.startswith("dashboard_route=")]
    assert route and "HttpOnly" in route[0] and "Secure" not in route[0]


def test_over_tls_hsts_is_sent_and_the_route_cookie_is_secure(proxied):
    status, headers, _ = _request(proxied["tls"], "/")
    assert status == 200
    assert headers["Strict-Transport-Security"].startswith("max-age=")
    assert headers["X-Frame-Options"] == "SAMEORIGIN" and headers["X-Content-Type-Options"] == "nosniff"
    route = [c for c in headers.get_all("Set-Cookie") if c.startswith("dashboard_route=")]
    assert route and "; Secure" in route[0]


def test_a_link_of_1001_parameters_reaches_the_app_through_the_proxy_and_is_cut_to_999(proxied, page):
    query = "&".join(f"p{n}=value{n:05d}" for n in range(1001))  # 16 kB: past nginx's default 8 kB request line
    page.goto(f"{proxied['plain'].url}/overview?{query}")
    wait_for_app(page)
    page.get_by_text("The link had 1,001 parameters; only the first 999 were read", exact=False).wait_for()


def test_a_link_longer_than_the_proxy_takes_gets_the_documented_page(proxied, page):
    cases = ",".join(f"val_{n:05d}" for n in range(20_000))  # 200 kB of ids
    response = page.goto(f"{proxied['plain'].url}/replay?corpus=codraw&cases={cases}&case=1")
    assert response.status == 414
    page.get_by_role("heading", name="This link is too long").wait_for()
    assert "64 KB" in page.content()
    assert response.headers["x-frame-options"] == "SAMEORIGIN"


def test_the_proxy_refuses_a_body_larger_than_the_app_s_upload_limit_before_it_arrives(proxied):
    status, _, _ = _request(proxied["plain"], "/_stcore/upload_file/session/file", method="PUT",
                            headers={"Content-Length": str(UPLOAD_REQUEST_BYTES + 1)})
    assert status == 413
    # one byte less is the app's to judge (here: no such session), not refused by the proxy
    status, _, _ = _request(proxied["plain"], "/_stcore/upload_file/session/file", method="PUT",
                            headers={"Content-Length": "0"})
    assert status != 413
