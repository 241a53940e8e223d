"""``gammon web``: a local analysis board in the browser, served with its JSON API (:mod:`app.web.api`).

    pip install -e '.[web]' && gammon web          # then open http://127.0.0.1:8080/

FastAPI and uvicorn come with the ``web`` extra and are imported only when the command
runs, so the rest of ``gammon`` works without them.
"""

from __future__ import annotations

import socket
import sys

from gammon.app.arguments import is_loopback
from gammon.engine.errors import GammonError
from gammon.options import between, model_option

WEB_PACKAGES = ("fastapi", "uvicorn", "starlette", "pydantic")


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port`` (0: a free port), so that a bad address is one line, not a log."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except (OSError, OverflowError) as exc:  # a bad host name, a port in use or out of range
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise GammonError(f"cannot listen on {host}:{port}: {reason}") from None
    return sock


def cmd_web(args) -> int:
    try:
        import uvicorn

        from gammon.app.web.api import create_app
    except ImportError as exc:
        if exc.name and exc.name.split(".")[0] in WEB_PACKAGES:
            raise GammonError(f"gammon web needs the web extra ({exc.name} is missing): "
                              "pip install -e '.[web]'") from None
        raise
    app = create_app(args.model)
    sock = listening_socket(args.host, args.port)
    host, port = sock.getsockname()[:2]
    if not is_loopback(host):
        # The board has no authentication: whoever reaches the port can use it, and its CPU.
        print(f"gammon web: WARNING: listening on {host}, not loopback; there is no authentication, anyone who "
              f"can reach port {port} can use this server", file=sys.stderr, flush=True)
    shown = f"[{host}]" if ":" in host else host
    print(f"gammon web board on http://{shown}:{port}/ (API documentation at /docs); Ctrl-C stops it", flush=True)
    # A stop waits at most 5 s for requests in flight: a rollout stops at its next progress report.
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=5))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    return 0


def register(sub) -> None:
    """Add ``gammon web`` to the ``gammon`` parser's ``sub``."""
    web = sub.add_parser("web", help="the analysis board in your browser, and its JSON API (pip install -e '.[web]')")
    web.add_argument("--host", default="127.0.0.1", help="address to listen on (default loopback)")
    web.add_argument("--port", type=between(0, 65535), default=8080,
                     help="TCP port (default 8080; 0 picks a free one)")
    model_option(web)
    web.set_defaults(run=cmd_web)
