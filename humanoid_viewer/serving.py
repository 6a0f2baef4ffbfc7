"""Where the web viewer serves, and whom it answers.

`check_bindable` fails fast, with a one-line `ViewerError`, on an address that is not on this
machine or a port already taken (otherwise viser's server thread dies on the bind while the caller
waits forever, ignoring ``--duration``). `exposure_warning` is the line to print when the
address is reachable from other machines.

`OriginGuard` refuses, with HTTP 403, requests whose ``Host`` or ``Origin`` header is not the
viewer's own: a web page open in the user's browser could otherwise drive the viewer through a
websocket (cross-site websocket hijacking), or reach it under its own domain name pointed at
this machine (DNS rebinding). `guarded_viser` installs it in viser's server (see there why it
is a scoped wrapper and not a viser option).
"""

from __future__ import annotations

import contextlib
import http
import ipaddress
import logging
import socket
import threading
from collections.abc import Iterable
from urllib.parse import urlsplit

from humanoid_model.validation import short
from humanoid_viewer.exceptions import ViewerError

__all__ = ["check_bindable", "exposure_warning", "OriginGuard", "normalize_origin", "guarded_viser"]

LOG = logging.getLogger("humanoid_viewer")
LOGGED_REFUSALS = 20  # distinct refused (Origin, Host) pairs logged; chosen: a page retrying
#                       every second must not flood the terminal, a handful of culprits still show
ORIGIN_TEXT = 60  # [characters] longest Origin / Host quoted in a log line (chosen: one line)
DEFAULT_PORTS = {"http": 80, "https": 443}
SERVED_SCHEME = "http"  # viser serves without TLS: the viewer's own page is an http:// origin


def check_bindable(host: str, port: int) -> None:
    """`ViewerError` unless a TCP server can bind ``host``:``port`` now (port 0: any free port)."""
    try:
        infos = socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        raise ViewerError(f"viewer: cannot serve on host '{host}': unknown address ({exc})") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            raise ViewerError(
                f"viewer: cannot serve on {host}:{port}: {exc.strerror or exc} "
                "(is the address on this machine, and the port free?)"
            ) from None


def exposure_warning(host: str, allow_origins: Iterable[str] = ()) -> str:
    """The warning to print when ``host`` serves beyond this machine, or when ``allow_origins``
    holds ``*`` ("" otherwise): anyone who can reach it can open the viewer and, through its
    controls, drive what it shows."""
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    parts = []
    if not loopback:
        where = "every interface of this machine" if host in ("0.0.0.0", "::") else f"{host}"
        parts.append(
            f"viewer: serving on {where}: any machine that can reach it can open the viewer and use its "
            "controls; use host 127.0.0.1 to keep it on this machine"
        )
    if any(str(a).strip() == "*" for a in allow_origins):
        parts.append(
            "viewer: allowed origin *: any web page open in a browser that reaches the viewer can use "
            "its controls; name the origins instead"
        )
    return "; ".join(parts)


# ---------------------------------------------------------------------- Origin / Host check
def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _split_origin(text: str):
    """``(scheme, host, port)`` of an origin URL (port: the scheme's default when absent), or None."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), (parts.hostname or "").rstrip(".")
    if scheme not in DEFAULT_PORTS or not host or parts.path not in ("", "/") or parts.query or parts.fragment:
        return None
    return scheme, host, port if port is not None else DEFAULT_PORTS[scheme]


def normalize_origin(text: str) -> str:
    """An allowed origin as the browser sends it: ``scheme://host[:port]``, lower case, the
    scheme's default port left out; ``*`` allows every origin and host. `ViewerError` otherwise."""
    if text.strip() == "*":
        return "*"
    split = _split_origin(text)
    if split is None:
        raise ViewerError(
            f"viewer: allowed origin {short(text, ORIGIN_TEXT)} is not an origin: give scheme://host[:port] "
            "with scheme http or https and no path, e.g. http://robot.example:8080, or * for any"
        )
    scheme, host, port = split
    netloc = f"[{host}]" if ":" in host else host
    return f"{scheme}://{netloc}" + ("" if port == DEFAULT_PORTS[scheme] else f":{port}")


def _split_host(text: str):
    """``(host, port or None)`` of a Host header, or None when malformed."""
    try:
        parts = urlsplit("//" + text.strip())
        port = parts.port
    except ValueError:
        return None
    host = (parts.hostname or "").rstrip(".")
    if not host or parts.path or parts.username is not None:
        return None
    return host, port


class OriginGuard:
    """Which ``Host`` and ``Origin`` headers the viewer answers.

    A request is served when

    - its ``Host`` names this machine: an IP address (a browser sends one only when the page's
      own address is that IP, so no other site can be behind it), ``localhost`` (or a
      ``*.localhost`` name), this machine's host name, the name the viewer was told to serve on,
      or the host of an allowed origin. A domain name of someone else's is what DNS rebinding
      uses, and is refused. The port is not compared: an SSH tunnel or port forward changes it,
      and the Origin rule below ties the page to this server.
    - it has exactly one ``Host`` header (two are refused: a proxy and the server could each read
      another one), and its target is a path, not an absolute URL naming a host of its own
      (`process_request`).
    - its ``Origin``, when it has one (browsers always send it on a websocket), is the page the
      viewer itself served: scheme, host and port compared, the viewer's scheme (http, as it
      serves: an https page of the same host and port is another origin) with the same host and
      port as ``Host``, or a loopback address with the port the viewer serves on; or one of the
      allowed origins (a TLS proxy's https origin is allowed so). Clients without a browser send
      no ``Origin``.

    ``allow`` lists further origins (`normalize_origin`); ``*`` turns both checks off.
    """

    def __init__(self, host: str, allow: Iterable[str] = ()):
        self.allowed = {normalize_origin(a) for a in allow}
        self.everything = "*" in self.allowed
        names = {"localhost", socket.gethostname().lower().rstrip(".")}
        if not _is_ip(host) and host not in ("", "0.0.0.0", "::"):
            names.add(host.lower().rstrip("."))
        for origin in self.allowed - {"*"}:
            names.add(_split_origin(origin)[1])
        self.names = frozenset(n for n in names if n)
        self._logged: set[tuple[str, str]] = set()
        self._log_lock = threading.Lock()

    def _host_ok(self, host: str) -> bool:
        host = host.lower()
        return _is_ip(host) or host in self.names or host.endswith(".localhost")

    def refusal(self, headers, served_port: int | None = None) -> str | None:
        """Why a request with these HTTP headers (``get_all(name)``) is refused, or None to serve it.
        ``served_port``: the port the request came in on."""
        if self.everything:
            return None
        hosts = headers.get_all("Host")
        if len(hosts) != 1:
            return "no Host header" if not hosts else "several Host headers"
        split_host = _split_host(hosts[0])
        if split_host is None:
            return "a malformed Host header"
        host, host_port = split_host
        if not self._host_ok(host):
            return "the Host is not a name of this machine (DNS rebinding?)"
        origins = headers.get_all("Origin")
        if not origins:
            return None
        if len(origins) > 1:
            return "several Origin headers"
        split = _split_origin(origins[0])
        if split is not None and normalize_origin(origins[0]) in self.allowed:
            return None
        if split is not None:
            scheme, origin_host, origin_port = split
            same = origin_host == host and origin_port == (host_port or DEFAULT_PORTS[scheme])
            loopback = (origin_host == "localhost" or _is_loopback(origin_host)) and origin_port == served_port
            if scheme == SERVED_SCHEME and (same or loopback):
                return None
        return "the Origin is not the viewer's own page (another site's page?)"

    def process_request(self, inner=None):
        """A websockets ``process_request`` that answers 403 to refused requests and hands the
        others to ``inner`` (viser's own: the HTTP file server)."""

        def process_request(connection, request):
            try:
                port = connection.local_address[1]
            except (AttributeError, IndexError, TypeError):
                port = None
            reason = self.refusal(request.headers, port)
            if reason is None and not self.everything and not str(getattr(request, "path", "/")).startswith("/"):
                # an absolute request target (http://other/...) names its own host, which HTTP says wins
                # over Host: the check above would have judged another name than the one asked for
                reason = "an absolute request target (a proxy's request, naming its own host)"
            if reason is not None:
                self._log(request.headers, reason)
                return connection.respond(
                    http.HTTPStatus.FORBIDDEN,
                    f"humanoid viewer: refused: {reason}. Open the viewer at the address it prints, "
                    "or allow this origin (view --allow-origin, viewer node parameter allow_origins).\n",
                )
            return inner(connection, request) if inner is not None else None

        return process_request

    def _log(self, headers, reason: str) -> None:
        origin, host = (short(", ".join(headers.get_all(h)), ORIGIN_TEXT) for h in ("Origin", "Host"))
        with self._log_lock:
            if (origin, host) in self._logged or len(self._logged) >= LOGGED_REFUSALS:
                return
            self._logged.add((origin, host))
            last = len(self._logged) == LOGGED_REFUSALS
        LOG.warning(
            "viewer: refused a request (HTTP 403) from Origin %s, Host %s: %s; allow it with --allow-origin "
            "(viewer node: allow_origins)%s",
            origin if origin != "''" else "(none)",
            host if host != "''" else "(none)",
            reason,
            "; further refusals are not logged" if last else "",
        )


def _is_loopback(name: str) -> bool:
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


_INSTALL = threading.Lock()


@contextlib.contextmanager
def guarded_viser(guard: OriginGuard):
    """While open, every websockets server started in this process (viser's) checks each request
    with ``guard``.

    viser (1.1) offers no hook for the opening handshake: its server calls
    ``websockets.asyncio.server.serve(handler, ..., process_request=<its file server>)`` from its
    own thread, inside ``ViserServer()``, which returns once the server listens. So, for the
    duration of ``ViserServer()`` only, ``serve`` is replaced by a subclass that chains
    ``guard.process_request`` in front of viser's; viser's own code is untouched. A lock makes
    two viewers started at once take turns. Yields a list that holds one entry per server
    guarded: the caller checks it is not empty, so that a viser that stops calling ``serve``
    this way fails loudly instead of serving unguarded.
    """
    import websockets.asyncio.server as ws_server

    guarded: list = []
    original = ws_server.serve

    class GuardedServe(original):
        def __init__(self, *args, process_request=None, **kwargs):
            super().__init__(*args, process_request=guard.process_request(process_request), **kwargs)
            guarded.append(self)

    with _INSTALL:
        ws_server.serve = GuardedServe
        try:
            yield guarded
        finally:
            ws_server.serve = original
