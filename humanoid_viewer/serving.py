"""Where the web viewer serves: the checks made before its server starts (issue 14 §7).

`check_bindable` fails fast, with a one-line `ViewerError`, on an address that is not on this
machine or a port already taken (viser's server thread used to die on the bind while the caller
waited forever, ignoring ``--duration``). `exposure_warning` is the line to print when the
address is reachable from other machines.
"""

from __future__ import annotations

import ipaddress
import socket

from humanoid_viewer.exceptions import ViewerError

__all__ = ["check_bindable", "exposure_warning"]


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


def exposure_warning(host: str) -> str:
    """The warning to print when ``host`` serves beyond this machine ("" for a loopback address):
    anyone who can reach it can open the viewer and, through its controls, drive what it shows."""
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if loopback:
        return ""
    where = "every interface of this machine" if host in ("0.0.0.0", "::") else f"{host}"
    return (
        f"viewer: serving on {where}: any machine that can reach it can open the viewer and use its "
        "controls; use host 127.0.0.1 to keep it on this machine"
    )
