"""Whom the web viewer answers (`humanoid_viewer.serving.OriginGuard`).

A viewer that accepts a websocket with any ``Origin`` and any ``Host`` can be driven by a page of
another site open in the user's browser (cross-site websocket hijacking), and by a site whose
domain name is re-pointed at 127.0.0.1 (DNS rebinding). A viewer runs on a free
loopback port in-process; real websocket handshakes (``websockets`` client) and HTTP requests
are made against it with the headers a browser would send.
"""

import http.client
import logging
import socket
import subprocess
import sys

import pytest
import viser
from websockets.datastructures import Headers
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from humanoid_viewer.app import Viewer
from humanoid_viewer.exceptions import ViewerError
from humanoid_viewer.serving import LOGGED_REFUSALS, OriginGuard, exposure_warning, normalize_origin

SUBPROTOCOL = f"viser-v{viser.__version__}"  # what viser's own page asks for
FOREIGN = "http://evil.example"


@pytest.fixture(scope="module")
def viewer():
    with Viewer(None, scene=None, port=0, verbose=False) as v:
        yield v


@pytest.fixture(scope="module")
def allowing():
    with Viewer(None, scene=None, port=0, verbose=False, allow_origins=[FOREIGN, "https://proxy.example"]) as v:
        yield v


def handshake(port, origin=None, host=None):
    """Open a websocket to 127.0.0.1:``port`` as a browser would (``host``: the name in the URL,
    sent as Host; the TCP connection still goes to 127.0.0.1, as after DNS rebinding). Returns
    "open" once viser's first message arrived, else the HTTP status of the refusal."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    uri = f"ws://{host or '127.0.0.1'}:{port}/"
    try:
        with connect(uri, sock=sock, origin=origin, subprotocols=[SUBPROTOCOL], open_timeout=10) as ws:
            assert ws.recv(timeout=10)  # viser talks to an accepted client at once
            return "open"
    except InvalidStatus as exc:
        return exc.response.status_code


def get_page(port, host):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/", headers={"Host": host})
        return conn.getresponse().status
    finally:
        conn.close()


# ---------------------------------------------------------------------- the running server
def test_a_foreign_origin_is_refused_with_403_and_logged(viewer, caplog):
    with caplog.at_level(logging.WARNING, logger="humanoid_viewer"):
        assert handshake(viewer.port, origin=FOREIGN) == 403
        assert handshake(viewer.port, origin="null") == 403  # sandboxed frame, file:// page
        assert handshake(viewer.port, origin="http://localhost:1") == 403  # another local site
    lines = [r.getMessage() for r in caplog.records]
    assert any("refused" in line and "403" in line and "'http://evil.example'" in line for line in lines), lines


def test_the_viewers_own_page_is_accepted(viewer):
    p = viewer.port
    assert handshake(p, origin=f"http://127.0.0.1:{p}") == "open"
    assert handshake(p, origin=f"http://localhost:{p}", host="localhost") == "open"
    assert handshake(p, origin=f"http://localhost:{p}") == "open"  # loopback name, served port
    assert handshake(p) == "open"  # no Origin: not a browser


def test_a_foreign_host_is_refused_dns_rebinding(viewer):
    p = viewer.port
    # evil.example re-pointed at 127.0.0.1: the page's own origin, the attacker's name as Host
    assert handshake(p, origin=f"{FOREIGN}:{p}", host="evil.example") == 403
    assert handshake(p, host="evil.example") == 403
    assert get_page(p, f"evil.example:{p}") == 403  # the page is not served under that name either
    assert get_page(p, f"127.0.0.1:{p}") == 200
    assert get_page(p, f"localhost:{p}") == 200


def test_allowed_origins_are_accepted_and_no_others(allowing):
    p = allowing.port
    assert handshake(p, origin=FOREIGN) == "open"
    assert handshake(p, origin="HTTP://Evil.Example:80/") == "open"  # the same origin, spelled otherwise
    assert handshake(p, origin=f"{FOREIGN}:{p}", host="evil.example") == "open"  # Host of an allowed origin
    assert handshake(p, origin="https://proxy.example", host="proxy.example") == "open"
    assert handshake(p, origin="https://evil.example") == 403  # another scheme is another origin
    assert handshake(p, origin="http://other.example") == 403
    assert handshake(p, host="other.example") == 403


def test_star_allows_any_origin_and_host():
    with Viewer(None, scene=None, port=0, verbose=False, allow_origins=["*"]) as v:
        assert handshake(v.port, origin=FOREIGN, host="other.example") == "open"
    assert "any web page" in exposure_warning("127.0.0.1", ["*"])
    assert exposure_warning("127.0.0.1", [FOREIGN]) == ""


def test_the_viewer_refuses_to_serve_when_the_check_cannot_be_installed(monkeypatch):
    class NotInstalled:
        def __init__(self, guard):
            pass

        def __enter__(self):
            return []  # no server was guarded

        def __exit__(self, *exc):
            return False

    monkeypatch.setattr("humanoid_viewer.app.guarded_viser", NotInstalled)
    with pytest.raises(ViewerError, match="cannot install the Origin/Host check"):
        Viewer(None, scene=None, port=0, verbose=False)


# ---------------------------------------------------------------------- the rules
def refusal(guard, host, origin=None, served=8080):
    headers = Headers([("Host", host)] + ([("Origin", origin)] if origin is not None else []))
    return guard.refusal(headers, served)


def test_rules_on_host_and_origin():
    loop = OriginGuard("127.0.0.1")
    assert refusal(loop, "127.0.0.1:8080", "http://127.0.0.1:8080") is None
    assert refusal(loop, "[::1]:8080", "http://[::1]:8080") is None
    assert refusal(loop, "localhost:9000", "http://localhost:9000") is None  # ssh -L 9000:127.0.0.1:8080
    assert refusal(loop, "127.0.0.1:8080", "http://localhost:8080") is None  # loopback, served port
    assert refusal(loop, "127.0.0.1:8080", "http://localhost:9000") is not None  # loopback, another port
    assert refusal(loop, "127.0.0.1:8080", "http://127.0.0.1:8081") is not None
    assert refusal(loop, "app.localhost:8080", "http://app.localhost:8080") is None  # *.localhost is loopback
    assert refusal(loop, "evil.example:8080", "http://evil.example:8080") is not None
    assert refusal(loop, "localhost.evil.example:8080") is not None
    assert refusal(loop, "evil.example:8080") is not None
    assert refusal(loop, "127.0.0.1:8080", "not a url") is not None
    assert refusal(loop, "a b:8080") is not None
    assert loop.refusal(Headers(), 8080) == "no Host header"
    assert loop.refusal(Headers([("Host", "127.0.0.1"), ("Host", "evil.example")]), 8080) == "several Host headers"
    # Bound to every interface: an address of this machine or its name, not another's name.
    wild = OriginGuard("0.0.0.0")
    me = socket.gethostname()
    assert refusal(wild, f"{me}:8080", f"http://{me}:8080") is None
    assert refusal(wild, "192.168.1.5:8080", "http://192.168.1.5:8080") is None
    assert refusal(wild, "evil.example:8080", "http://evil.example:8080") is not None
    assert refusal(wild, "192.168.1.5:8080", "http://192.168.1.6:8080") is not None
    # Bound to a name: that name is ours.
    named = OriginGuard("robot.lab")
    assert refusal(named, "robot.lab:8080", "http://robot.lab:8080") is None


def test_origins_are_normalized_or_refused():
    assert normalize_origin("HTTP://Evil.Example:80/") == "http://evil.example"
    assert normalize_origin("https://proxy.example:8443") == "https://proxy.example:8443"
    assert normalize_origin("http://[::1]:8080") == "http://[::1]:8080"
    assert normalize_origin(" * ") == "*"
    for bad in ("evil.example", "ftp://evil.example", "http://evil.example/viewer", "http://", "http://x:99999"):
        with pytest.raises(ViewerError, match="is not an origin"):
            normalize_origin(bad)
    with pytest.raises(ViewerError, match="is not an origin"):
        Viewer(None, scene=None, port=0, verbose=False, allow_origins=["evil.example"])


def test_refusals_are_logged_once_each_and_at_most_a_bounded_number(caplog, monkeypatch):
    guard = OriginGuard("127.0.0.1")

    class Connection:
        local_address = ("127.0.0.1", 8080)

        def respond(self, status, text):
            return status

    class Request:
        def __init__(self, origin):
            self.headers = Headers([("Host", "127.0.0.1:8080"), ("Origin", origin)])

    process = guard.process_request()
    with caplog.at_level(logging.WARNING, logger="humanoid_viewer"):
        for _ in range(3):
            assert process(Connection(), Request(FOREIGN)) == 403
        for i in range(2 * LOGGED_REFUSALS):
            process(Connection(), Request(f"http://site{i}.example"))
        assert process(Connection(), Request("http://127.0.0.1:8080")) is None  # handed on to viser
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == LOGGED_REFUSALS and sum(FOREIGN + "'" in line for line in lines) == 1
    assert "further refusals are not logged" in lines[-1]
    long_origin = "http://" + "a" * 500 + ".example"
    guard = OriginGuard("127.0.0.1")
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="humanoid_viewer"):
        guard.process_request()(Connection(), Request(long_origin))
    assert len(caplog.records[0].getMessage()) < 400  # the origin is shortened


def test_view_with_a_malformed_allowed_origin_exits_2_at_once(repo_root):
    r = subprocess.run(
        [sys.executable, "-m", "humanoid_stack", "view", "none", "--allow-origin", "evil.example", "--duration", "1"],
        cwd=repo_root,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2 and "is not an origin" in r.stderr and "Traceback" not in r.stderr


def test_serve_is_restored_after_the_viewer_started(viewer):
    import websockets.asyncio.server as ws_server

    assert ws_server.serve.__name__ == "serve" and ws_server.serve.__module__ == "websockets.asyncio.server"


def test_the_origin_scheme_is_compared_with_the_host_and_port():
    """The viewer serves http: a page of https://HOST:PORT (another origin, whoever serves it) was
    taken for the viewer's own because only the host and the port were compared. An allowed https
    origin (a TLS proxy's) is still accepted."""
    loop = OriginGuard("127.0.0.1")
    assert refusal(loop, "127.0.0.1:8080", "http://127.0.0.1:8080") is None
    assert refusal(loop, "127.0.0.1:8080", "https://127.0.0.1:8080") is not None  # same host and port
    assert refusal(loop, "127.0.0.1:8080", "https://localhost:8080") is not None  # loopback, served port
    assert refusal(loop, "localhost:443", "https://localhost") is not None  # the default port spelled out
    proxy = OriginGuard("127.0.0.1", ["https://robot.example"])
    assert refusal(proxy, "robot.example", "https://robot.example") is None


def test_a_request_with_two_host_headers_is_refused_by_the_server(viewer):
    """A proxy and the server could each read another of two Host headers: the running server
    answers 403 whichever comes first, and serves the same request with one. A target in absolute
    form (``GET http://evil.example/``), whose host HTTP puts before the Host header, is refused."""
    p = viewer.port
    for hosts in ([f"127.0.0.1:{p}", "evil.example"], ["evil.example", f"127.0.0.1:{p}"], [f"127.0.0.1:{p}"] * 2):
        with socket.create_connection(("127.0.0.1", p), timeout=10) as s:
            s.sendall(("GET / HTTP/1.1\r\n" + "".join(f"Host: {h}\r\n" for h in hosts) + "\r\n").encode())
            assert s.recv(64).startswith(b"HTTP/1.1 403"), hosts
    with socket.create_connection(("127.0.0.1", p), timeout=10) as s:  # the target's host would win over Host
        s.sendall(f"GET http://evil.example/ HTTP/1.1\r\nHost: 127.0.0.1:{p}\r\n\r\n".encode())
        assert s.recv(64).startswith(b"HTTP/1.1 403")
    assert get_page(p, f"127.0.0.1:{p}") == 200
