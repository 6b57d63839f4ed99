"""Naming the rows by their printed deal numbers, and the printed headers that confirm the form
and give the columns' order."""

from __future__ import annotations

from ocr.data import DEAL_COLUMNS
from ocr.table.common import DEALS


def name_rows(read: list[str | None], share: float = 1 / 3) -> list[str | None] | None:
    """Row labels ("1".."30") from the printed deal numbers as read, or None when they do
    not show a deal table.  The found rows are consecutive, so one offset (the number of
    the first row) is chosen by vote; stray misreadings are outvoted.  The winning offset needs
    ``share`` of the rows' votes (at least 3) and twice the runner-up's.  Rows the offset
    puts outside 1..30 (ruled rows that are not deals) get None."""
    votes: dict[int, int] = {}
    for i, text in enumerate(read):
        if text and text.isdigit():
            off = int(text) - i
            votes[off] = votes.get(off, 0) + 1
    if not votes:
        return None
    ranked = sorted(votes.items(), key=lambda kv: -kv[1])
    off, n = ranked[0]
    if n < max(3, int(len(read) * share)) or (len(ranked) > 1 and ranked[1][1] * 2 > n):
        return None
    return [str(i + off) if 1 <= i + off <= DEALS else None for i in range(len(read))]


HEADER_WORDS = {"dealer": "dealer", "score": "score", "cumulative": "cumul"}
HEADER_STEMS = ("deal", "score", "cumul", "ns", "ew")  # two of them confirm the form


def headers_read(words: list[tuple[str, float]]) -> bool:
    """Whether the header band shows at least two of the summary sheet's headers
    (Deal/Dealer, Score, Cumulative, N/S, E/W; slashes are often lost in reading)."""
    text = " ".join(w for w, _ in words).lower().replace("/", "")
    return sum(stem in text for stem in HEADER_STEMS) >= 2


def column_order(words: list[tuple[str, float]],
                 header: tuple[int, int, int, int] | None) -> tuple[str, ...]:
    """The DEAL_COLUMNS key of each data column, left to right.

    The printed order is Dealer, Score N/S E/W, Cumulative N/S E/W.  When the header
    shows "Cumulative" left of "Score", the two pairs are swapped."""
    if header is None:
        return DEAL_COLUMNS
    pos: dict[str, float] = {}
    for text, x in words:
        t = text.lower()
        for name, stem in HEADER_WORDS.items():
            if stem in t and name not in pos and not (name == "score" and "cumul" in t):
                pos[name] = x + header[0]
    if "score" in pos and "cumulative" in pos and pos["cumulative"] < pos["score"]:
        return ("dealer", "cum_ns", "cum_ew", "ns", "ew")
    return DEAL_COLUMNS


def other_headers(sure: list[str]) -> bool:
    """Whether Tesseract read, and was sure of, words in the header band that are none of the
    summary sheet's (another form's headers, as against a header too blurred to read)."""
    words = ["".join(ch for ch in w.lower() if ch.isalpha()) for w in sure]
    return sum(len(w) >= 3 and not any(stem in w for stem in HEADER_STEMS) for w in words) >= 2
