"""Generated competitions: a roster of pairs with e-mail addresses and areas, sheets of their
matches with the names written (or printed, with a QR code, on `rubberscan form --match` forms) as
players write them, ties played on over a second sheet, and the e-mails the winners send.

    roster = make_roster(rng, 40)                          # rows of PAIRS.csv
    image, truth = match_sheet(seed, names=..., ...)       # one filled, scanned sheet of a match
    eml = email_bytes(sender, subject, jpeg, "scan.jpg")   # the winners' e-mail

Deterministic from the seeds.  The sheet's numbers are samples/content.py's simulated match;
``truth`` adds the names as written, the winners' side and, for a tie, the extra deals.
"""

from __future__ import annotations

import random
from dataclasses import replace
from email.message import EmailMessage
from email.utils import format_datetime

import cv2
import numpy as np

from ocr.form import random_style, render_form
from ocr.matchform import MatchHeader, render_match_form
from samples.content import MORE_SURNAMES, SURNAMES, SheetContent, sheet_content
from samples.fill import Pen, fill_form
from samples.scan import make_scan
from scoring.pad import score_match
from scoring.simulate import random_match, random_result

AREAS = ("Paraparaumu", "Waikanae", "Otaki", "Raumati", "Paekakariki", "Levin")
GRADES = ("Jnr", "Int", "Open", "Int/Jnr", "Open")
FIRST_INITIALS = "ABCDEGHJKLMNPRST"


def make_roster(rng: random.Random, n_pairs: int, emails: float = 0.9) -> list[dict]:
    """``n_pairs`` pairs (PAIRS.csv rows): distinct players drawn from every surname we have, a
    few pairs of one family ("Hill / Hill") and surnames shared between pairs; most with
    addresses; an area each, several to an area."""
    names = list(SURNAMES + MORE_SURNAMES)
    rng.shuffle(names)
    rows = []
    for k in range(n_pairs):
        a = names.pop()
        r = rng.random()
        if r < 0.06:
            b = a  # a couple
        elif r < 0.14 and rows:
            b = rng.choice(rows)["players"][0]  # a surname another pair has too
        else:
            b = names.pop()
        pid = f"P{k + 1}"
        addrs = []
        for name in (a, b):
            if rng.random() < emails:
                user = f"{rng.choice(FIRST_INITIALS).lower()}.{name.lower()}".replace("'", "")
                addrs.append(f"{user}{k + 1}@example.org")
        rows.append({"pair": pid, "players": (a, b), "names": f"{a} / {b}",
                     "grade": rng.choice(GRADES), "emails": " ".join(addrs),
                     "area": rng.choice(AREAS) if rng.random() < 0.9 else ""})
    return rows


def roster_csv(rows: list[dict]) -> str:
    lines = ["pair,names,grade,emails,area"]
    for r in rows:
        lines.append(",".join([r["pair"], r["names"], r["grade"], r["emails"], r["area"]]))
    return "\n".join(lines) + "\n"


def written_names(rng: random.Random, players: tuple[str, str]) -> str:
    """A pair's names as its players write them on a sheet: mostly as the roster has them, now
    and then the other way round, with "&", in capitals, with initials, or one name alone."""
    a, b = players
    r = rng.random()
    if r < 0.1:
        a, b = b, a
    r = rng.random()
    if r < 0.55:
        text = f"{a} / {b}"
    elif r < 0.7:
        text = f"{a} & {b}"
    elif r < 0.8:
        text = f"{a}/{b}"
    elif r < 0.9:
        text = f"{rng.choice(FIRST_INITIALS)} {a} / {rng.choice(FIRST_INITIALS)} {b}"
    else:
        text = f"{a} - {b}"
    if rng.random() < 0.12:
        text = text.upper()
    return text


def _tied_rows(rng: random.Random) -> tuple[list[dict], list[dict]]:
    """The 30 deals of a tied match and the two extra deals that decide it (a fresh rubber with
    its own unfinished bonus), as sheet rows: (first sheet, extra deals numbered 31, 32)."""
    while True:
        m = random_match(rng)
        if len(m.deals) > 30:
            break
    first = score_match([d.result for d in m.deals[:30]], m.rules, unfinished=True)
    dealers = [d.dealer for d in m.deals]
    rows = [{"deal": ln.deal, "dealer": dealers[ln.deal - 1], "ns": ln.total.ns, "ew": ln.total.ew,
             "cum_ns": ln.cumulative.ns, "cum_ew": ln.cumulative.ew} for ln in first.lines]
    while True:
        extra = score_match([random_result(rng), random_result(rng)], m.rules, unfinished=True)
        if extra.winner is not None:
            break
    seat = "NESW".index(dealers[29])  # the dealer goes on rotating
    more = [{"deal": 30 + ln.deal, "dealer": "NESW"[(seat + ln.deal) % 4], "ns": ln.total.ns,
             "ew": ln.total.ew, "cum_ns": ln.cumulative.ns, "cum_ew": ln.cumulative.ew}
            for ln in extra.lines]
    return rows, more


def tie_content(rng: random.Random, layout: str) -> tuple[SheetContent, list[dict]]:
    """A sheet whose 30 deals end level, and the two extra deals (deal numbers 31, 32, their
    cumulatives from nothing)."""
    rows, more = _tied_rows(rng)
    final = rows[-1]
    totals = {"ns": final["cum_ns"], "ew": final["cum_ew"]}
    content = SheetContent(names={"ns": "", "ew": ""}, winners_text="", winners_side="",
                           rows=[dict(r) for r in rows], true_rows=rows,
                           totals_written=dict(totals) if layout == "wide" else None)
    return content, more


def extra_content(more: list[dict], before: dict[str, int] | None, layout: str) -> SheetContent:
    """The extra deals of a tie on a second sheet, in its rows 1, 2...: cumulatives going on from
    ``before`` (the first sheet's totals), or from nothing when ``before`` is None."""
    rows = []
    for k, r in enumerate(more, start=1):
        row = dict(r, deal=k)
        if before is not None:
            row["cum_ns"] += before["ns"]
            row["cum_ew"] += before["ew"]
        rows.append(row)
    final = rows[-1]
    totals = {"ns": final["cum_ns"], "ew": final["cum_ew"]}
    return SheetContent(names={"ns": "", "ew": ""}, winners_text="", winners_side="", rows=rows,
                        true_rows=rows, totals_written=totals if layout == "wide" else None)


def match_sheet(seed: int, *, names: dict[str, str], winners: str | None = None,
                header: MatchHeader | None = None, scan: str | None = None,
                layout: str | None = None, content: SheetContent | None = None,
                mistake_rate: float = 0.0, hand: str | None = None,
                zero_style: str | None = None) -> tuple[np.ndarray, dict]:
    """One filled, scanned sheet of a match.  ``names``: {"ns", "ew"} as written (ignored on a
    printed form, ``header``, which has them printed in); ``winners``: what the winners line says
    (None: the names of the side ahead, as written; "side": N/S or E/W; "losers": the names of
    the side behind); ``content``: the rows (default a simulated match); ``hand`` (samples/hands.py)
    and ``zero_style`` (blank, dash, zero) default to drawn from the seed."""
    rng = random.Random(seed)
    np_rng = np.random.default_rng(seed)
    layout = layout or rng.choice(("classic", "classic", "wide"))
    scan = scan or rng.choices(("clean", "skewed", "photo", "fax"), weights=(35, 25, 25, 15))[0]
    drawn = rng.choices(("mnist", "strokes", "hershey", "typed"), weights=(40, 27, 23, 10))[0]
    hand = hand or drawn
    ink = "black" if hand == "typed" else rng.choice(("blue", "blue", "black", "pencil"))
    dpi = 200 if scan in ("photo", "fax") else 300
    style = random_style(rng, layout, dpi)
    if header is not None:
        grey, geom, _ = render_match_form(header, style)
    else:
        grey, geom = render_form(style)
    page = cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)
    if content is None:
        content = sheet_content(rng, layout, mistake_rate=mistake_rate,
                                mistakes=None if mistake_rate else ())
    final = content.rows[-1]
    totals = {s: final[f"cum_{s}"] for s in ("ns", "ew")}
    ahead = None if totals["ns"] == totals["ew"] else max(totals, key=totals.get)
    written = {"ns": names["ns"], "ew": names["ew"]} if header is None else {"ns": "", "ew": ""}
    if winners is None:
        winners = names[ahead] if ahead else ""
    elif winners == "side":
        winners = {"ns": "N/S", "ew": "E/W"}.get(ahead or "", "")
    elif winners == "losers":
        winners = names[{"ns": "ew", "ew": "ns"}[ahead]] if ahead else ""
    content = replace(content, names=written, winners_text=winners,
                      winners_side=ahead or "")
    pen = Pen(hand, ink, rng, dpi / 25.4)
    zeros = rng.choice(("blank", "dash", "zero"))
    fill_form(page, geom, content, [pen], 99, zero_style or zeros, np_rng)
    sc = make_scan(page, dpi, scan, rng, np_rng, faint_ink=ink == "pencil")
    truth = {"seed": seed, "scan": scan, "hand": hand, "ink": ink, "layout": layout,
             "names": dict(names), "winners_text": winners, "totals": totals, "ahead": ahead,
             "printed": header is not None, "rows": content.rows,
             "jpeg_quality": sc.jpeg_quality or 90}
    return sc.image, truth


def jpeg(image: np.ndarray, quality: int = 90) -> bytes:
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return buf.tobytes()


def email_bytes(sender: str | None, subject: str, attachment: bytes | None, filename: str,
                when=None, to: str = "organiser@example.org") -> bytes:
    """An e-mail as the winners send it: the scan attached (or none: an e-mail without a scan)."""
    msg = EmailMessage()
    if sender:
        msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    if when is not None:
        msg["Date"] = format_datetime(when)
    msg.set_content("Our result is attached.\n" if attachment else "We played; the sheet follows.\n")
    if attachment is not None:
        maintype, subtype = ("application", "pdf") if filename.endswith(".pdf") else ("image", "jpeg")
        msg.add_attachment(attachment, maintype=maintype, subtype=subtype, filename=filename)
    return bytes(msg)
