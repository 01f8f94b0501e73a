"""The listening socket of `miner annotate serve`, bound before the links are printed so that
`--port 0` (any free port) prints the port the server really listens on."""

from __future__ import annotations

import socket
from typing import Any


def listening_socket(host: str, port: int) -> socket.socket:
    """A bound TCP socket on host:port (port 0: a free port chosen by the system)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def base_url(sock: socket.socket) -> str:
    """The http:// address a bound socket is reached at (IPv6 hosts in brackets)."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def serve(app: Any, sock: socket.socket) -> None:
    """Serve the app on the bound socket until Ctrl+C."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    server.run(sockets=[sock])
