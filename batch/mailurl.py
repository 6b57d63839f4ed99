"""Mail servers as the command line names them (``imaps://USER@HOST[:PORT]/FOLDER``,
``smtps://USER@HOST``, ``smtp://USER@HOST``), their passwords and their TLS settings.

A password never comes from the command line (other users of the machine can read it there):
it comes from an environment variable or from ``~/.netrc``.  Nothing here prints or logs it.
"""

from __future__ import annotations

import netrc
import os
import ssl
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

DEFAULT_PORTS = {"imaps": 993, "imap": 143, "smtps": 465, "smtp": 587}


class MailURLError(ValueError):
    """A mail server address, password or certificate file that cannot be used (bad usage)."""


@dataclass(frozen=True)
class MailServer:
    """One mail server address: ``path`` is the IMAP folder (INBOX when none is given) and
    empty for SMTP; ``text`` is the address as shown in messages (it never holds a password)."""

    scheme: str
    host: str
    port: int
    user: str | None
    path: str
    text: str

    @property
    def implicit_tls(self) -> bool:
        """TLS from the first byte (imaps, smtps), rather than none or STARTTLS."""
        return self.scheme.endswith("s")


def is_mail_url(text: str, schemes: tuple[str, ...]) -> bool:
    """Whether ``text`` is meant as one of ``schemes``' addresses (not a file name)."""
    return text.lower().startswith(tuple(f"{s}://" for s in schemes))


def parse_mail_url(text: str, schemes: tuple[str, ...]) -> MailServer:
    """``scheme://USER@HOST[:PORT][/FOLDER]`` -> MailServer; MailURLError says what is wrong.
    The user may be percent-encoded (``org%40club.org@mail.club.org``), as may the folder."""
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    if scheme not in schemes:
        raise MailURLError(f"{text}: not a {' or '.join(s + '://' for s in schemes)} address")
    if parts.password is not None:
        raise MailURLError(
            f"{scheme}://...: a password in the address is refused (the command line is visible to "
            "other users of the machine); use the environment variable or ~/.netrc instead")
    if parts.query or parts.fragment:
        raise MailURLError(f"{text}: '?' and '#' are not part of a mail server address "
                           "(write them as %3F and %23 in a folder name)")
    host = parts.hostname
    if not host:
        raise MailURLError(f"{text}: no server name (expected {scheme}://USER@HOST[:PORT]/...)")
    try:
        port = parts.port or DEFAULT_PORTS[scheme]
    except ValueError:
        raise MailURLError(f"{text}: the port must be a number from 1 to 65535") from None
    user = unquote(parts.username) if parts.username else None
    # holds no password (refused above), so it may be shown as given
    return MailServer(scheme, host, port, user, unquote(parts.path.strip("/")), text.rstrip("/"))


def find_password(server: MailServer, env_var: str, netrc_file: str | Path | None = None) -> str:
    """The password for ``server``: ``env_var`` when set (and not empty), else the ``~/.netrc``
    entry for its host (whose login, when it names one, must be the address's user)."""
    value = os.environ.get(env_var)
    if value:
        return value
    path = Path(netrc_file) if netrc_file is not None else Path.home() / ".netrc"
    who = f"{server.user}@{server.host}" if server.user else server.host
    hint = (f"set {env_var}, or add a line 'machine {server.host} login {server.user or 'USER'} "
            f"password ...' to {path} (readable by you alone)")
    if not path.is_file():
        raise MailURLError(f"no password for {who}: {hint}")
    try:
        entry = netrc.netrc(str(path)).authenticators(server.host)
    except netrc.NetrcParseError as exc:
        # exc.msg may quote a token of the file (a password): give the reason's kind and line only
        why = "access too permissive" if "permissive" in exc.msg else "malformed"
        raise MailURLError(f"{path}: {why} (line {exc.lineno}); {hint}") from None
    except OSError as exc:
        raise MailURLError(f"{path}: cannot be read ({exc.strerror or exc}); {hint}") from None
    if entry is None or not entry[2]:
        raise MailURLError(f"no password for {who} in {path}: {hint}")
    login = entry[0]
    if server.user and login and login != server.user:
        raise MailURLError(f"{path} has a password for {login}@{server.host}, "
                           f"not for {who}: {hint}")
    return entry[2]


def tls_context(cafile: str | Path | None = None) -> ssl.SSLContext:
    """Certificates checked and the host name matched; ``cafile`` (PEM) is the one certificate
    authority trusted instead of the system's (a club's own server with a private CA)."""
    if cafile is None:
        return ssl.create_default_context()
    try:
        return ssl.create_default_context(cafile=str(cafile))
    except FileNotFoundError:
        raise MailURLError(f"{cafile}: no such certificate file") from None
    except (OSError, ssl.SSLError) as exc:
        raise MailURLError(f"{cafile}: not a PEM certificate file ({exc})") from None


def tls_problem(exc: BaseException, option: str) -> str:
    """A failed TLS handshake as a sentence that says what to do."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return (f"the server's certificate is not trusted ({exc.verify_message or exc}); if "
                "the server uses a private certificate authority, give its certificate with "
                f"{option} FILE")
    return f"TLS failed: {exc}"
