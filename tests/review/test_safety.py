"""The review app's safety rules, through the real app (Flask's WSGI test client): a foreign Host
header, a request without the token, a POST without the CSRF token or from another site, a path
outside the batch folder, and text from the sheets escaped."""

from __future__ import annotations

import re

import pytest

from review.app import create_app
from review.images import inside
from review.safety import TOKEN_COOKIE, Guard
from tests.support import SEED_001, running, sheet

ROWS = running(SEED_001)


@pytest.fixture
def out(tmp_path):
    from tests.review.conftest import ledger_with

    hostile = sheet(ROWS, probs={(4, "ns"): [(None, 0.9)]})
    hostile.names = {"ns": "<script>alert(1)</script>", "ew": "\"><img src=x onerror=alert(2)>"}
    out = ledger_with(tmp_path / "out", {"s1": hostile})
    (out / "report.html").write_text("<p>the report</p>")
    (tmp_path / "secret.html").write_text("outside the folder")
    (out / "sheets" / "link.html").symlink_to(tmp_path / "secret.html")
    return out


def client(out, host="127.0.0.1", port=8765):
    guard = Guard.for_server(host, port)
    app = create_app(out, guard, who="tester")
    return app.test_client(), guard


def local(path="/"):
    return {"base_url": "http://127.0.0.1:8765", "path": path}


def csrf_of(page: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', page).group(1)


def test_the_index_answers_and_lists_the_open_sheet(out):
    c, _ = client(out)
    answer = c.get("/", base_url="http://127.0.0.1:8765")
    assert answer.status_code == 200 and 'data-sheet="s1"' in answer.text
    policy = answer.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert answer.headers["X-Frame-Options"] == "DENY"


@pytest.mark.parametrize("host", ["evil.example:8765", "127.0.0.1:9999", "localhost.evil:8765",
                                  "127.0.0.1@evil:8765", ""])
def test_a_foreign_host_header_is_refused(out, host):
    c, _ = client(out)
    answer = c.get("/", headers={"Host": host})
    assert answer.status_code == 421 and "host name" in answer.text


def test_loopback_names_are_this_server(out):
    c, _ = client(out)
    for host in ("127.0.0.1:8765", "localhost:8765", "[::1]:8765"):
        assert c.get("/", headers={"Host": host}).status_code == 200


def test_beyond_loopback_a_token_is_required(out):
    c, guard = client(out, host="0.0.0.0")
    base = "http://192.0.2.7:8765"
    assert guard.token and guard.address().endswith(f"/?token={guard.token}")
    assert c.get("/", base_url=base).status_code == 403
    assert c.get("/?token=wrong", base_url=base).status_code == 403
    given = c.get(f"/sheet/s1?token={guard.token}", base_url=base)
    assert given.status_code == 303 and given.headers["Location"] == "/sheet/s1"
    assert TOKEN_COOKIE in given.headers["Set-Cookie"] and "HttpOnly" in given.headers["Set-Cookie"]
    assert c.get("/sheet/s1", base_url=base).status_code == 200  # the cookie carries it now
    c.delete_cookie(TOKEN_COOKIE, domain="192.0.2.7")
    assert c.get("/sheet/s1", base_url=base).status_code == 403


def test_a_post_without_the_csrf_token_changes_nothing(out):
    c, guard = client(out)
    base = "http://127.0.0.1:8765"
    page = c.get("/sheet/s1", base_url=base).text
    form = {"version": "0", "item": "review:5:ns", "choice": "0"}
    assert c.post("/sheet/s1/decide", data=form, base_url=base).status_code == 403
    assert c.post("/sheet/s1/decide", data={**form, "csrf": "forged"},
                  base_url=base).status_code == 403
    from_elsewhere = c.post("/sheet/s1/decide", data={**form, "csrf": csrf_of(page)},
                            headers={"Origin": "http://evil.example"}, base_url=base)
    assert from_elsewhere.status_code == 403
    from batch.ledger import Ledger
    with Ledger(out / "ledger.sqlite") as ledger:
        assert ledger.decisions() == []
    good = c.post("/sheet/s1/decide", data={**form, "csrf": csrf_of(page)},
                  headers={"Origin": base}, base_url=base)
    assert good.status_code == 303
    with Ledger(out / "ledger.sqlite") as ledger:
        assert [(d["target"], d["after"], d["who"]) for d in ledger.decisions()] == \
            [("5:ns", 60, "tester")]


@pytest.mark.parametrize("path", ["/files/../secret.html", "/files/%2e%2e/secret.html",
                                  "/files/sheets/link.html", "/files/ledger.sqlite",
                                  "/files//etc/passwd", "/files/.hidden.html",
                                  "/img/s1/cell/5/..%2f..%2fsecret.png"])
def test_nothing_outside_the_folder_is_served(out, path):
    c, _ = client(out)
    answer = c.get(path, base_url="http://127.0.0.1:8765", follow_redirects=True)
    assert answer.status_code == 404 and "outside the folder" not in answer.text


def test_the_folder_s_own_files_are_served(out):
    c, _ = client(out)
    answer = c.get("/files/report.html", base_url="http://127.0.0.1:8765")
    assert answer.status_code == 200 and "the report" in answer.text
    assert "unsafe-inline" in answer.headers["Content-Security-Policy"]  # the report's styles
    assert "script-src" not in answer.headers["Content-Security-Policy"]


def test_inside_refuses_what_is_not_in_the_folder(tmp_path):
    (tmp_path / "a.html").write_text("x")
    assert inside(tmp_path, "a.html") == (tmp_path / "a.html").resolve()
    for bad in ("../a.html", "/etc/passwd", "a.sqlite", "", ".a.html", "missing.html"):
        assert inside(tmp_path, bad) is None


def test_text_from_the_sheets_is_escaped(out):
    c, _ = client(out)
    for path in ("/", "/sheet/s1"):
        text = c.get(path, base_url="http://127.0.0.1:8765").text
        assert "<script>alert(1)" not in text and "&lt;script&gt;alert(1)" in text
        assert "<img src=x" not in text


def test_a_name_given_once_is_who_decides(out):
    c, _ = client(out)
    base = "http://127.0.0.1:8765"
    page = c.get("/sheet/s1", base_url=base).text
    assert 'value="tester"' in page  # the default given to the app (the OS user by default)
    answer = c.post("/who", data={"who": "Mary <b>", "back": "//evil.example/",
                                  "csrf": csrf_of(page)}, base_url=base)
    assert answer.status_code == 303 and answer.headers["Location"] == "/"
    page = c.get("/sheet/s1", base_url=base).text
    assert 'value="Mary &lt;b&gt;"' in page
    c.post("/sheet/s1/decide", data={"version": "0", "item": "review:5:ns", "choice": "0",
                                     "csrf": csrf_of(page)}, base_url=base)
    from batch.ledger import Ledger
    with Ledger(out / "ledger.sqlite") as ledger:
        assert ledger.decisions()[0]["who"] == "Mary <b>"
