"""Real mail servers for the mail tests and bench/bench_mail.py: Dovecot (IMAP, from the OS
packages) and an aiosmtpd SMTP server, each on 127.0.0.1 with a configuration, user, maildir and
TLS certificate of its own under a throwaway folder, started and stopped by its user.

Dovecot refuses to run its login processes or to read mail as root: run as root (CI), they run
as the package's own users (dovenull, dovecot) and the mail as ``nobody``; run as anyone else,
everything runs as that user.
"""

from __future__ import annotations

import asyncio
import contextlib
import imaplib
import os
import pwd
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
from email.message import EmailMessage
from pathlib import Path

# Quotes, a backslash, a space and an accent: the password must survive every quoting layer.
PASSWORD = 'pa ss"w\\rd-é'
USER = "org@club.test"
DOVECOT = shutil.which("dovecot") or "/usr/sbin/dovecot"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, up: bool, seconds: float = 15.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                if up:
                    return
        except OSError:
            if not up:
                return
        time.sleep(0.05)
    raise RuntimeError(f"port {port} still {'closed' if up else 'open'} after {seconds} s")


class Dovecot:
    """A Dovecot instance of the test's own: imaps on ``port``, plain imap on ``plain_port``."""

    def __init__(self, root: Path, cert_pem: bytes, key_pem: bytes):
        if not Path(DOVECOT).exists():
            raise RuntimeError("dovecot is not installed: `make test` installs it (dovecot-imapd)")
        self.root = root
        (root / "cert.pem").write_bytes(cert_pem)
        (root / "key.pem").write_bytes(key_pem)
        os.chmod(root / "key.pem", 0o600)
        self.port, self.plain_port = free_port(), free_port()
        if os.geteuid() == 0:
            mail_user = pwd.getpwnam("nobody")
            internal, login = "dovecot", "dovenull"
            group = "dovecot"
        else:
            mail_user = pwd.getpwuid(os.geteuid())
            internal = login = mail_user.pw_name
            group = Path("/etc/group").exists() and _group_name(mail_user.pw_gid) or internal
        self.uid, self.gid = mail_user.pw_uid, mail_user.pw_gid
        self.home = root / "home"
        self.home.mkdir()
        os.chown(self.home, self.uid, self.gid)
        with (root / "passwd").open("w") as fh:  # passwd-file: user:{scheme}password:uid:gid::home
            fh.write(f"{USER}:{{PLAIN}}{PASSWORD}:{self.uid}:{self.gid}::{self.home}\n")
        (root / "dovecot.conf").write_text(f"""
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = yes
ssl_cert = <{root}/cert.pem
ssl_key = <{root}/key.pem
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
default_internal_user = {internal}
default_internal_group = {group}
default_login_user = {login}
first_valid_uid = 1
mail_location = maildir:~/Maildir
mail_fsync = never
passdb {{
  driver = passwd-file
  args = {root}/passwd
}}
userdb {{
  driver = passwd-file
  args = {root}/passwd
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {self.plain_port}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {self.port}
    ssl = yes
  }}
}}
service anvil {{
  chroot =
}}
""")
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen([DOVECOT, "-F", "-c", str(self.root / "dovecot.conf")],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     start_new_session=True)
        try:
            wait_for_port(self.port, up=True)
        except RuntimeError:
            self.stop()
            raise RuntimeError("dovecot did not start: " + self.log()) from None

    def stop(self) -> None:
        """Stop the server and every process of it, so every connection to it is cut (its master
        alone would leave the running sessions be)."""
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):  # its own group (start_new_session)
                os.killpg(self.proc.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=10)
            with contextlib.suppress(ProcessLookupError):  # whatever is left of it
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.proc = None
        wait_for_port(self.port, up=False)

    def kill_sessions(self) -> None:
        """Kill the server's IMAP session processes (not the server): open connections drop."""
        assert self.proc is not None
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                pid, rest = stat.read_text().split(" ", 1)
            except OSError:
                continue
            name, fields = rest.rsplit(") ", 1)
            ppid = int(fields.split()[1])
            if ppid == self.proc.pid and name.endswith("imap"):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(pid), signal.SIGKILL)

    def cleanup(self) -> None:
        """Stop the server and remove its folder."""
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def log(self) -> str:
        path = self.root / "dovecot.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else "(no log)"

    def url(self, folder: str = "INBOX", plain: bool = False) -> str:
        user = USER.replace("@", "%40")
        if plain:
            return f"imap://{user}@127.0.0.1:{self.plain_port}/{folder}"
        return f"imaps://{user}@localhost:{self.port}/{folder}"

    def client(self) -> imaplib.IMAP4:
        """A plain connection of the test's own, to load and look at messages."""
        imap = imaplib.IMAP4("127.0.0.1", self.plain_port, timeout=10)
        secret = f"\0{USER}\0{PASSWORD}".encode()
        imap.authenticate("PLAIN", lambda _: secret)
        return imap

    def append(self, messages, folder: str = "INBOX", when: float | None = None) -> None:
        """Deliver ``messages`` (bytes or EmailMessage) into ``folder`` (made if missing)."""
        imap = self.client()
        try:
            imap.create(f'"{folder}"')
            stamp = imaplib.Time2Internaldate(when if when is not None else time.time())
            for raw in messages:
                data = raw.as_bytes() if isinstance(raw, EmailMessage) else raw
                typ, resp = imap.append(f'"{folder}"', None, stamp, data)
                assert typ == "OK", resp
        finally:
            imap.logout()

    def message_ids(self, folder: str = "INBOX") -> list[str]:
        """The Message-ID of every message in ``folder``, in UID order."""
        imap = self.client()
        try:
            typ, _ = imap.select(f'"{folder}"', readonly=True)
            if typ != "OK":
                return []
            typ, data = imap.uid("FETCH", "1:*", "(BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)])")
            out = []
            for part in data:
                if isinstance(part, tuple):
                    out.append(part[1].decode().partition(":")[2].strip())
            return out
        finally:
            imap.logout()

    def delete_file_of(self, message_id: str) -> None:
        """Remove a message's file from the maildir behind the server's back (a message gone
        between the search and the fetch, as when another client deletes it)."""
        for path in (self.home / "Maildir").rglob("*"):
            if path.is_file() and path.parent.name in ("cur", "new") and \
                    message_id.encode() in path.read_bytes():
                path.unlink()
                return
        raise AssertionError(f"no file holds {message_id}")


def _group_name(gid: int) -> str:
    import grp

    return grp.getgrgid(gid).gr_name


# --------------------------------------------------------------------------- SMTP
class SmtpSink:
    """An aiosmtpd server keeping every message it accepts; ``implicit`` TLS (smtps) or
    STARTTLS (smtp), with a login required either way."""

    def __init__(self, ca, implicit: bool, user: str = USER, password: str = PASSWORD):
        from aiosmtpd.controller import Controller
        from aiosmtpd.smtp import AuthResult

        self.received: list[tuple[str, list[str], bytes]] = []
        self.refuse: set[str] = set()  # recipients refused (550)
        self.logins: list[str] = []
        server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ca.issue_cert("localhost", "127.0.0.1").configure_cert(server_ctx)
        sink = self

        class Handler:
            async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
                if address in sink.refuse:
                    return "550 5.1.1 no such mailbox here"
                envelope.rcpt_tos.append(address)
                return "250 OK"

            async def handle_DATA(self, server, session, envelope):
                sink.received.append((envelope.mail_from, list(envelope.rcpt_tos),
                                      envelope.original_content or envelope.content))
                return "250 OK"

        def authenticator(server, session, envelope, mechanism, data):
            ok = data.login.decode() == user and data.password.decode() == password
            if ok:
                sink.logins.append(data.login.decode())
            return AuthResult(success=ok)

        self.port = free_port()
        self.implicit = implicit
        kwargs = dict(authenticator=authenticator, auth_required=True)
        if implicit:
            kwargs.update(ssl_context=server_ctx, auth_require_tls=False)
        else:
            kwargs.update(tls_context=server_ctx, require_starttls=True)
        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port,
                                     server_hostname="localhost", **kwargs)

    def start(self) -> None:
        self.controller.start()

    def stop(self) -> None:
        try:
            self.controller.stop()
        except (AssertionError, RuntimeError, asyncio.CancelledError):
            pass

    def url(self) -> str:
        scheme = "smtps" if self.implicit else "smtp"
        return f"{scheme}://{USER.replace('@', '%40')}@localhost:{self.port}"


def start_dovecot(ca) -> Dovecot:
    """A running Dovecot with a certificate from the trustme ``ca``, in a folder of its own
    that every Dovecot user may enter (pytest's own are the test user's alone); ``cleanup``."""
    root = Path(tempfile.mkdtemp(prefix="rubberscan-dovecot-"))
    os.chmod(root, 0o755)
    cert = ca.issue_cert("localhost", "127.0.0.1")
    server = Dovecot(root, b"".join(p.bytes() for p in cert.cert_chain_pems),
                     cert.private_key_pem.bytes())
    server.start()
    return server
