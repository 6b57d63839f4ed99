"""Fixtures of the mail tests: a certificate authority, a Dovecot IMAP server and an SMTP server
of the test's own (servers.py), and the IMAP password in the environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.batch.mail.servers import PASSWORD, SmtpSink, start_dovecot


@pytest.fixture(scope="session")
def ca():
    import trustme

    return trustme.CA()


@pytest.fixture(scope="session")
def ca_file(ca, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("ca") / "club-ca.pem"
    ca.cert_pem.write_to_path(str(path))
    return path


@pytest.fixture
def dovecot(ca):
    server = start_dovecot(ca)
    try:
        yield server
    finally:
        server.cleanup()


@pytest.fixture
def imap_env(monkeypatch, tmp_path):
    """The password in the environment, and a home with no ~/.netrc."""
    monkeypatch.setenv("RUBBERSCAN_IMAP_PASSWORD", PASSWORD)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return PASSWORD


@pytest.fixture(params=["smtps", "starttls"])
def smtp_sink(request, ca):
    sink = SmtpSink(ca, implicit=request.param == "smtps")
    sink.start()
    try:
        yield sink
    finally:
        sink.stop()
