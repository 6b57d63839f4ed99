"""Mail server addresses, passwords and certificate files (batch/mailurl.py), and how `rubberscan
batch` says what is wrong with them before it reads anything."""

from __future__ import annotations

import os

import pytest

import cli
from batch.imap import utf7_folder
from batch.mailurl import MailURLError, find_password, parse_mail_url, tls_context

IMAP = ("imaps", "imap")


def test_addresses():
    s = parse_mail_url("imaps://org%40club.org@mail.club.org/Scores/Week%2012", IMAP)
    assert (s.scheme, s.user, s.host, s.port, s.path) == (
        "imaps", "org@club.org", "mail.club.org", 993, "Scores/Week 12")
    s = parse_mail_url("IMAP://org@127.0.0.1:1143", IMAP)
    assert (s.scheme, s.port, s.path, s.implicit_tls) == ("imap", 1143, "", False)
    s = parse_mail_url("smtp://relay.club.org", ("smtps", "smtp"))
    assert (s.user, s.port) == (None, 587)
    assert parse_mail_url("smtps://a@b", ("smtps",)).port == 465


@pytest.mark.parametrize("url, said", [
    ("imaps://org:hunter2@mail.club.org/INBOX", "a password in the address is refused"),
    ("imaps:///INBOX", "no server name"),
    ("imaps://org@mail.club.org:99999/INBOX", "port must be a number"),
    ("imaps://org@mail.club.org/IN?BOX", "'?' and '#'"),
    ("pop3://org@mail.club.org", "not a imaps:// or imap:// address"),
])
def test_bad_addresses(url, said):
    with pytest.raises(MailURLError, match=said) as exc:
        parse_mail_url(url, IMAP)
    assert "hunter2" not in str(exc.value)


def test_password_from_the_environment_then_netrc(tmp_path, monkeypatch):
    server = parse_mail_url("imaps://org@mail.club.org/INBOX", IMAP)
    netrc = tmp_path / ".netrc"
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("RUBBERSCAN_IMAP_PASSWORD", raising=False)
    with pytest.raises(MailURLError, match="set RUBBERSCAN_IMAP_PASSWORD, or add a line "
                       "'machine mail.club.org login org password"):
        find_password(server, "RUBBERSCAN_IMAP_PASSWORD")
    netrc.write_text("machine other.org login org password nope\n"
                     "machine mail.club.org login org password \"s3cret word\"\n")
    os.chmod(netrc, 0o600)
    assert find_password(server, "RUBBERSCAN_IMAP_PASSWORD") == "s3cret word"
    monkeypatch.setenv("RUBBERSCAN_IMAP_PASSWORD", "from-env")
    assert find_password(server, "RUBBERSCAN_IMAP_PASSWORD") == "from-env"
    monkeypatch.setenv("RUBBERSCAN_IMAP_PASSWORD", "")  # empty: as if unset
    assert find_password(server, "RUBBERSCAN_IMAP_PASSWORD") == "s3cret word"

    other = parse_mail_url("imaps://treasurer@mail.club.org/INBOX", IMAP)
    with pytest.raises(MailURLError, match="has a password for org@mail.club.org, not for "
                       "treasurer@mail.club.org") as exc:
        find_password(other, "RUBBERSCAN_IMAP_PASSWORD")
    assert "s3cret" not in str(exc.value)

    netrc.write_text("machine mail.club.org login org password s3cret\nbogus s3cret\n")
    with pytest.raises(MailURLError, match=r"malformed \(line 2\)") as exc:
        find_password(server, "RUBBERSCAN_IMAP_PASSWORD")
    assert "s3cret" not in str(exc.value)


def test_certificate_files(tmp_path):
    with pytest.raises(MailURLError, match="no such certificate file"):
        tls_context(tmp_path / "missing.pem")
    (tmp_path / "junk.pem").write_text("not a certificate")
    with pytest.raises(MailURLError, match="not a PEM certificate file"):
        tls_context(tmp_path / "junk.pem")


def test_folder_names_in_modified_utf7():
    assert utf7_folder("INBOX") == "INBOX"
    assert utf7_folder("Feuilles reçues") == "Feuilles re&AOc-ues"
    assert utf7_folder("A&B") == "A&-B"
    assert utf7_folder("日本語") == "&ZeVnLIqe-"  # RFC 3501's own example


@pytest.mark.parametrize("args, said", [
    (["imap://org@127.0.0.1/INBOX"], "imap:// sends the password unencrypted"),
    (["imaps://org:pw@127.0.0.1/INBOX"], "a password in the address is refused"),
    (["imaps://org@127.0.0.1/INBOX", "--imap-ca", "/nonexistent.pem"], "no such certificate file"),
    (["imaps://nobody@127.0.0.1/INBOX"], "no password for nobody@127.0.0.1"),
    (["some-folder", "--move-to", "Done"], "--move-to needs a mailbox input"),
    (["imaps://org@127.0.0.1", "--move-to", "INBOX"], "give a folder other than the one read"),
    (["imaps://org@127.0.0.1/INBOX", "--since", "last week"], None),
])
def test_batch_says_what_is_wrong_before_reading(args, said, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("RUBBERSCAN_IMAP_PASSWORD", raising=False)
    (tmp_path / "some-folder").mkdir()
    monkeypatch.chdir(tmp_path)
    if said is None:  # argparse's own error
        with pytest.raises(SystemExit) as exc:
            cli.main(["batch", *args, "--out", "out"])
        assert exc.value.code == 2 and "a date such as 2026-03-01" in capsys.readouterr().err
        return
    assert cli.main(["batch", *args, "--out", "out"]) == cli.ExitCode.USAGE
    assert said in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_mailbox_that_cannot_be_reached_fails_the_run_not_the_other_inputs(
        tmp_path, monkeypatch, capsys):
    from tests.batch.mail.servers import free_port

    monkeypatch.setenv("RUBBERSCAN_IMAP_PASSWORD", "x")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "scans").mkdir()
    (tmp_path / "scans" / "notes.txt").write_text("not a scan")
    port = free_port()  # nothing listens there
    url = f"imaps://org@127.0.0.1:{port}/INBOX"
    assert cli.main(["batch", url, "scans", "--out", "out", "--quiet"]) == cli.ExitCode.SOME_FAILED
    err = capsys.readouterr().err
    assert f"failed: {url}: cannot connect to 127.0.0.1 port {port}: " in err
    assert "skipped: scans/notes.txt: not an image, PDF or e-mail" in err  # the folder was read
    assert f"mailbox {url}: 0 messages, 0 fetched" in err
    assert (tmp_path / "out" / "report.html").is_file()
