"""A whole competition run through the commands, as an organiser runs it: the roster, the draw,
three rounds of e-mailed scans read by the real pipeline into a real ledger, a tie played on over
a second sheet, a winners line naming the losers, a sheet of a pair not entered, an e-mail with no
scan, a draw edited and imported back, a match missing its sheet and one overdue -- checked in
`results` and on the competition page."""

from __future__ import annotations

import csv
import io
import json
import random
from datetime import datetime, timezone
from pathlib import Path

import pytest

import cli
from batch.ledger import Ledger
from competition.forms import match_headers
from samples.competition import (
    email_bytes,
    extra_content,
    jpeg,
    make_roster,
    match_sheet,
    roster_csv,
    tie_content,
)

pytestmark = pytest.mark.slow

N_PAIRS = 16


def run(capsys, *argv) -> tuple[int, str, str]:
    capsys.readouterr()
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def results(capsys, folder: Path, today: str) -> dict[str, dict]:
    status, out, err = run(capsys, "results", folder, "--format", "json", "--today", today)
    assert status == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    keys = {"round", "match", "pairs", "ns", "totals", "winner", "margin", "status", "sheets"}
    assert all(set(r) == keys for r in rows)
    return {r["match"]: r for r in rows}


def draw_rows(folder: Path) -> list[dict]:
    return list(csv.DictReader(io.StringIO((folder / "draw.csv").read_text())))


class Mailbox:
    """The e-mails of one round, as .eml files in a folder of their own."""

    def __init__(self, root: Path, name: str, roster: dict, month: int):
        self.dir = root / name
        self.dir.mkdir()
        self.roster, self.month = roster, month
        self.n = 0

    def send(self, pair: str | None, image, quality: int = 90, day: int = 1, sender=None):
        self.n += 1
        if sender is None:  # a member of the pair, or the club's address for a pair with none
            sender = (self.roster[pair]["emails"].split() or ["secretary@club.example.net"])[0]
        data = jpeg(image, quality) if image is not None else None
        when = datetime(2025, self.month, day, 12, self.n, tzinfo=timezone.utc)
        (self.dir / f"mail-{self.n:02d}.eml").write_bytes(
            email_bytes(sender, f"result {self.n}", data, f"sheet{self.n}.jpg", when))
        return f"{self.dir.name}/mail-{self.n:02d}.eml > sheet{self.n}.jpg"


def play(rows: dict, m: dict, seed: int, rng: random.Random, **kw):
    """A sheet of match ``m`` (a draw row), pair_a or pair_b at N/S at random, typed (so the
    numbers read surely and the next round can be drawn); returns (image, truth, ns, winner)."""
    a, b = m["pair_a"], m["pair_b"]
    ns, ew = (a, b) if rng.random() < 0.5 else (b, a)
    names = {"ns": rows[ns]["names"], "ew": rows[ew]["names"]}
    image, truth = match_sheet(seed, names=names, scan="clean", hand="typed", **kw)
    winner = None if truth["ahead"] is None else (ns if truth["ahead"] == "ns" else ew)
    return image, truth, ns, winner


def test_a_competition_from_the_roster_to_the_third_round(tmp_path, capsys):
    rng = random.Random(36)
    roster_rows = make_roster(rng, N_PAIRS)
    rows = {r["pair"]: r for r in roster_rows}
    pairs = tmp_path / "pairs.csv"
    pairs.write_text(roster_csv(roster_rows))
    comp = tmp_path / "kapiti"

    status, out, err = run(capsys, "competition", comp, "--pairs", pairs, "--name", "Kapiti Rubber Bridge")
    assert status == 0, err
    assert "16 pairs" in out
    status, out, err = run(capsys, "draw", comp, "--round", "1", "--deadline", "2025-05-31", "--seed", 7)
    assert status == 0, err
    r1 = [m for m in draw_rows(comp) if m["round"] == "1"]
    assert len(r1) == 8 and all(m["pair_b"] for m in r1) and out.startswith("round,match,")

    # -- round 1: a tie played on over a second sheet, a printed form with its QR code, a sheet
    # of a pair not entered, an e-mail without a scan
    mail = Mailbox(tmp_path, "r1", rows, 5)
    sources: dict[str, list[str]] = {}
    winners: dict[str, str] = {}
    tie = r1[0]
    content, more = tie_content(random.Random(5), "classic")
    image, truth, ns, _ = play(rows, tie, 101, rng, content=content, layout="classic")
    assert truth["ahead"] is None  # level after 30 deals
    sources[tie["match"]] = [mail.send(tie["pair_a"], image, day=20)]
    extra = extra_content(more, None, "classic")  # deals 31-32, the cumulatives from nothing
    image, truth, ns2, winner = play(rows, tie, 102, rng, content=extra, layout="classic",
                                     zero_style="dash")
    sources[tie["match"]].append(mail.send(winner, image, day=21))
    winners[tie["match"]] = winner
    with Ledger(comp / "ledger.sqlite") as ledger:
        header = match_headers(ledger, [r1[1]["match"]])[0]
    status, _, err = run(capsys, "form", tmp_path / "forms.pdf", "--match", r1[1]["match"], "--dir", comp)
    assert status == 0 and (tmp_path / "forms.pdf").read_bytes()[:4] == b"%PDF", err
    for k, m in enumerate(r1[1:], start=1):
        image, truth, ns, winner = play(rows, m, 110 + k, rng, header=header if k == 1 else None)
        winners[m["match"]] = winner
        sources[m["match"]] = [mail.send(winner, image, day=10 + k)]
    strangers = match_sheet(150, names={"ns": "Ngata / Parata", "ew": "Tane / Wong"}, scan="clean",
                            hand="typed")[0]
    stranger_source = mail.send(None, strangers, sender="A Stranger <someone@example.com>", day=25)
    losers = [p for m in r1 for p in (m["pair_a"], m["pair_b"]) if p != winners[m["match"]]]
    loser = next(p for p in losers if rows[p]["emails"])
    mail.send(loser, None, day=26)  # "we lost; they will send the sheet": no scan
    status, out, err = run(capsys, "batch", mail.dir, "--out", comp, "--quiet")
    assert status == 0, err
    assert "competition:" in out

    res = results(capsys, comp, "2025-06-01")
    for m in r1:
        r = res[m["match"]]
        assert r["status"] == "verified", (m, r)
        assert r["winner"] == winners[m["match"]] and r["sheets"] == sources[m["match"]]
    t = res[tie["match"]]
    assert set(t["totals"]) == {tie["pair_a"], tie["pair_b"]} and t["margin"] > 0
    assert all(stranger_source not in r["sheets"] for r in res.values())

    # -- round 2: a winners line naming the losers
    status, out, err = run(capsys, "draw", comp, "--round", "2", "--deadline", "2025-06-30", "--seed", 7)
    assert status == 0, err
    r2 = [m for m in draw_rows(comp) if m["round"] == "2"]
    assert sorted(p for m in r2 for p in (m["pair_a"], m["pair_b"])) == sorted(winners[m["match"]] for m in r1)
    mail = Mailbox(tmp_path, "r2", rows, 6)
    flagged = r2[0]["match"]
    for k, m in enumerate(r2):  # the first match's winners line names the losers
        image, truth, ns, winner = play(rows, m, 200 + k, rng,
                                        winners="losers" if k == 0 else None)
        winners[m["match"]] = winner
        sources[m["match"]] = [mail.send(winner, image, day=10 + k)]
    status, _, err = run(capsys, "batch", mail.dir, "--out", comp, "--quiet")
    assert status == 0, err
    res = results(capsys, comp, "2025-07-01")
    for m in r2:
        r = res[m["match"]]
        assert r["winner"] == winners[m["match"]] and r["sheets"] == sources[m["match"]]
        assert r["status"] == ("flags" if m["match"] == flagged else "verified"), r

    # -- round 3: drawn, edited by the organiser (a later date for one match), imported back;
    # no sheet comes: one match is overdue, the other still has time
    status, _, err = run(capsys, "draw", comp, "--round", "3", "--deadline", "2025-07-31", "--seed", 7)
    assert status == 0, err
    edited = draw_rows(comp)
    r3 = [m for m in edited if m["round"] == "3"]
    assert len(r3) == 2
    r3[0]["deadline"] = "2025-08-31"
    text = "round,match,pair_a,pair_b,deadline\n" + "".join(
        f"{m['round']},{m['match']},{m['pair_a']},{m['pair_b']},{m['deadline']}\n" for m in r3)
    (tmp_path / "draw-r3.csv").write_text(text)
    status, _, err = run(capsys, "competition", comp, "--pairs", pairs, "--draw", tmp_path / "draw-r3.csv")
    assert status == 0, err
    res = results(capsys, comp, "2025-08-15")
    assert len(res) == 14
    assert res[r3[0]["match"]]["status"] == "missing" and res[r3[1]["match"]]["status"] == "overdue"
    assert res[r3[1]["match"]]["winner"] is None and res[r3[1]["match"]]["sheets"] == []
    assert res[r1[0]["match"]]["status"] == "verified"  # the rounds before stand

    status, out, _ = run(capsys, "results", comp, "--format", "csv", "--today", "2025-08-15")
    table = list(csv.DictReader(io.StringIO(out)))
    assert len(table) == 14 and table[0]["round"] == "1" and {t["status"] for t in table} >= {
        "verified", "flags", "missing", "overdue"}
    status, out, _ = run(capsys, "results", comp, "--format", "text", "--today", "2025-08-15")
    assert "[overdue]" in out and "flag: the winners line names" in out

    # -- the page: rounds, statuses, the winners going through, the draw, the standings, and
    # everything that fits no match
    page = (comp / "competition.html").read_text()
    assert "Kapiti Rubber Bridge" in page and "Round 3" in page
    assert page.count("overdue") >= 1 and "no sheet yet" in page
    assert "Going through from round 1" in page and "Going through from round 2" in page
    assert "4 pairs still in" in page
    assert "Best Junior pairs" in page and "Best Intermediate pairs" in page
    assert "r1/mail-" in page and stranger_source.split(" > ")[0] in page  # the stranger's sheet
    no_scan = page.split("E-mails without a scan")[1]
    assert rows[loser]["names"] in no_scan and rows[loser]["emails"].split()[0] in no_scan
    assert "the winners line names" in page
    assert (comp / "draw.html").is_file() and "Round 3" in (comp / "draw.html").read_text()
    assert draw_rows(comp)[-1]["deadline"] == r3[-1]["deadline"]
    assert 'href="competition.html"' in (comp / "report.html").read_text()
