"""`rubberscan review DIR`: the review app served by waitress (a production WSGI server) on
this machine's loopback address, or where ``--host`` says with a token required."""

from __future__ import annotations

import logging
import signal
import sys
import threading
from typing import TextIO

from review.app import create_app
from review.safety import Guard

THREADS = 4  # requests answered at once (decisions are made one at a time anyway)


def serve(out_dir, host: str = "127.0.0.1", port: int = 8765, who: str | None = None,
          out: TextIO = sys.stdout) -> None:
    """Serve the review app for ``out_dir`` until interrupted; the address (with its token when
    one is needed) is the first line printed.  LedgerError when the folder has no usable
    ledger, OSError when the address cannot be bound."""
    from waitress.server import create_server

    # "Task queue depth is 1" when the browser asks for a page and its pictures at once: noise
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    guard = Guard.for_server(host, port)
    app = create_app(out_dir, guard, who=who)
    server = create_server(app, host=host, port=port, threads=THREADS, ident="rubberscan",
                           clear_untrusted_proxy_headers=True)
    guard.port = int(getattr(server, "effective_port", port))  # --port 0: the one given
    threading.Thread(target=app.extensions["rubberscan"].warm, daemon=True).start()
    print(guard.address(), file=out, flush=True)
    if guard.token:
        print("the token in this address is needed to use the app: give it only to the people "
              "who decide", file=out, flush=True)
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.close()
        app.extensions["rubberscan"].report.flush()  # the last decisions in the report too


def _interrupt(signum, frame):
    raise KeyboardInterrupt
