"""The review app's safety rules, checked on every request before any page is made.

- The Host header must name this server (a page elsewhere cannot reach it by a DNS name that
  points here: "DNS rebinding"); a foreign one is refused.
- Served beyond this machine (``--host``), every request needs the token printed at start: given
  once in the address, then kept in a cookie only this site sees.
- Every POST carries the CSRF token of the pages this server made (a form on another site
  cannot post here), and an Origin header, when sent, must be this server's.
- Every answer forbids framing, scripts and styles from elsewhere and sniffing of types, sends
  no referrer to other sites (the policy "same-origin": with "no-referrer" a browser's own
  form posts would carry "Origin: null"); pages are not cached.
(Text is escaped by the templates; files are served from inside the batch folder only:
review/images.py.)
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass, field
from urllib.parse import urlsplit

LOCAL_NAMES = ("127.0.0.1", "localhost", "[::1]", "::1")
ANY_ADDRESS = ("0.0.0.0", "::", "")
TOKEN_COOKIE = "rubberscan_review_token"
PAGE_POLICY = ("default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; "
               "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
# the batch's own report pages (served under /files/) carry inline styles and data: pictures
REPORT_POLICY = ("default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; "
                 "form-action 'none'; base-uri 'none'; frame-ancestors 'none'")


class Refused(Exception):
    """A request the safety rules refuse: ``status`` and a message for the person."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Guard:
    """The rules for one server: where it listens and its secrets."""

    host: str
    port: int
    token: str | None = None  # required when serving beyond this machine
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(24))

    @classmethod
    def for_server(cls, host: str, port: int) -> Guard:
        """A guard for ``host``: a token is made unless it is this machine's loopback."""
        local = host in LOCAL_NAMES
        return cls(host=host, port=port, token=None if local else secrets.token_urlsafe(24))

    # ------------------------------------------------------------------ the checks
    def allowed_host(self, header: str | None) -> bool:
        """Whether a Host header names this server (its address, or loopback when it listens
        there; any name when it listens on every address, where the token guards it)."""
        if not header:
            return False
        parts = urlsplit("//" + header)
        try:
            port = parts.port
        except ValueError:
            return False
        name = (parts.hostname or "").lower()
        if "[" in header:  # an IPv6 literal keeps its brackets in the name we compare
            name = f"[{name}]"
        if port is not None and port != self.port:
            return False
        if self.host in ANY_ADDRESS:
            return True
        names = {self.host.lower(), f"[{self.host.lower()}]"}
        if self.host in LOCAL_NAMES:
            names.update(LOCAL_NAMES)
        return name in names

    def token_ok(self, given: str | None) -> bool:
        return self.token is None or (given is not None and hmac.compare_digest(
            given.encode("utf-8", "replace"), self.token.encode()))

    def csrf_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode("utf-8", "replace"),
                                                         self.csrf.encode())

    def origin_ok(self, origin: str | None, host_header: str | None) -> bool:
        """An Origin header (browsers send one with a POST) must be this very server."""
        if origin is None:
            return True
        parts = urlsplit(origin)
        return parts.scheme in ("http", "https") and parts.netloc == (host_header or "")

    def check(self, method: str, host: str | None, token: str | None, csrf: str | None,
              origin: str | None) -> None:
        """Raise :class:`Refused` for a request the rules do not allow."""
        if not self.allowed_host(host):
            raise Refused(421, "this server does not answer to that host name")
        if not self.token_ok(token):
            raise Refused(403, "a token is needed: open the address `rubberscan review` printed "
                               "(it ends in ?token=...)")
        if method not in ("GET", "HEAD", "OPTIONS"):
            if not self.origin_ok(origin, host):
                raise Refused(403, "a request from another site is refused")
            if not self.csrf_ok(csrf):
                raise Refused(403, "this form is not from this server's pages (or the server was "
                                   "restarted since): load the page again and decide again")

    def address(self) -> str:
        """The address to open (with the token when there is one)."""
        host = self.host if self.host not in ANY_ADDRESS else "127.0.0.1"
        if ":" in host and not host.startswith("["):
            host = f"[{host}]"
        return f"http://{host}:{self.port}/" + (f"?token={self.token}" if self.token else "")


def headers(policy: str = PAGE_POLICY) -> dict[str, str]:
    """The headers every answer carries."""
    return {"Content-Security-Policy": policy, "X-Content-Type-Options": "nosniff",
            "X-Frame-Options": "DENY", "Referrer-Policy": "same-origin",
            "Cache-Control": "no-store"}
