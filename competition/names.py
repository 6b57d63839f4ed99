"""A names or winners line read against a closed list: how likely the line's writing is each known
string, by the PP-OCRv6 recogniser's CTC probability of that exact string (ocr/ppocr.py's model,
through its public ``probs``).

The recogniser's 18,710 characters are folded into what tells names apart: the 26 letters (case
and accents folded), one "separator" class (/ & + - , |), "other" (digits, anything else), and the
CTC blank, which also takes spaces, dots and apostrophes (so "Hill/Cheater", "HILL / CHEATER" and
"Hill / Cheater" are one string).  A string's log-probability is the CTC forward sum over all its
alignments, for many strings at once.  Frame probabilities are tempered (``temperature``) first.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

LETTERS = "abcdefghijklmnopqrstuvwxyz"
BLANK, SEP, OTHER = 0, len(LETTERS) + 1, len(LETTERS) + 2
CLASSES = len(LETTERS) + 3
WILD = CLASSES  # in a target only: any one letter (an initial the roster does not give)
SEPARATOR_CHARS = "/&+-,|\\"
OPTIONAL_CHARS = " .'`’·_"  # no part of a name's identity: count as "nothing here"
_NEG = -1e30


def char_class(ch: str) -> int:
    """The folded class of one character (see the module docstring)."""
    if ch == "" or ch in OPTIONAL_CHARS:
        return BLANK
    if ch in SEPARATOR_CHARS:
        return SEP
    base = unicodedata.normalize("NFKD", ch)[:1].lower()
    k = LETTERS.find(base) if base else -1
    return k + 1 if k >= 0 else OTHER


def encode(text: str) -> tuple[int, ...]:
    """``text`` as folded classes, what is optional dropped and repeated separators merged."""
    return _tidy([char_class(ch) for ch in text])


def _tidy(labels: list[int]) -> tuple[int, ...]:
    """Blanks dropped, repeated separators merged, none at the ends."""
    out: list[int] = []
    for c in labels:
        if c == BLANK or (c == SEP and out and out[-1] == SEP):
            continue
        out.append(c)
    while out and out[0] == SEP:
        out.pop(0)
    while out and out[-1] == SEP:
        out.pop()
    return tuple(out)


def decode_classes(labels: tuple[int, ...]) -> str:
    return "".join(LETTERS[c - 1] if 1 <= c <= len(LETTERS) else "/" if c == SEP else
                   "*" if c == WILD else "?" for c in labels)


@lru_cache(maxsize=4)
def _fold_matrix(chars: tuple[str, ...]) -> np.ndarray:
    """(len(chars), CLASSES) 0/1 matrix: which folded class each recogniser character adds to."""
    m = np.zeros((len(chars), CLASSES), np.float32)
    for i, ch in enumerate(chars):
        m[i, BLANK if i == 0 else char_class(ch) if len(ch) == 1 else OTHER] = 1.0
    return m


def fold(probs: np.ndarray, chars: tuple[str, ...]) -> np.ndarray:
    """Per-frame probabilities over the recogniser's characters -> log-probabilities over the
    folded classes (T, CLASSES)."""
    folded = np.asarray(probs, np.float32) @ _fold_matrix(tuple(chars))
    folded /= np.maximum(folded.sum(axis=1, keepdims=True), 1e-30)
    return np.log(np.maximum(folded, 1e-30)).astype(np.float32)


def temper(logp: np.ndarray, temperature: float) -> np.ndarray:
    """Each frame's distribution raised to 1/temperature and renormalised."""
    if temperature == 1.0:
        return logp
    x = logp.astype(np.float64) / temperature
    x -= np.logaddexp.reduce(x, axis=1, keepdims=True)
    return x


def ctc_log_likelihoods(logp: np.ndarray, targets: list[tuple[int, ...]]) -> np.ndarray:
    """log P(target | frames) under CTC for every target at once (blank = class 0); -inf-like for a
    target longer than the frames allow."""
    n = len(targets)
    if n == 0:
        return np.zeros(0)
    t_frames = logp.shape[0]
    lmax = max(1, max(len(t) for t in targets))
    s = 2 * lmax + 1
    ext = np.zeros((n, s), np.int64)  # blank, l1, blank, l2, ..., blank
    valid = np.zeros((n, s), bool)
    for i, t in enumerate(targets):
        ext[i, 1:2 * len(t):2] = t
        valid[i, :2 * len(t) + 1] = True
    # a label may be reached from two back when it is no blank and differs from the label there
    skip = np.zeros((n, s), bool)
    skip[:, 2:] = (ext[:, 2:] != 0) & (ext[:, 2:] != ext[:, :-2])
    lp = logp.astype(np.float64)
    alpha = np.full((n, s), _NEG)
    alpha[:, 0] = lp[0, 0]
    alpha[:, 1] = np.where(valid[:, 1], lp[0, ext[:, 1]], _NEG)
    rows = np.arange(n)[:, None]
    for t in range(1, t_frames):
        prev = alpha
        a1 = np.concatenate([np.full((n, 1), _NEG), prev[:, :-1]], axis=1)
        a2 = np.concatenate([np.full((n, 2), _NEG), prev[:, :-2]], axis=1)
        a2 = np.where(skip, a2, _NEG)
        alpha = np.logaddexp(np.logaddexp(prev, a1), a2) + lp[t][ext[rows, np.arange(s)]]
        alpha = np.where(valid, alpha, _NEG)
    lengths = np.array([2 * len(t) + 1 for t in targets])
    last = alpha[np.arange(n), lengths - 1]
    before = np.where(lengths >= 2, alpha[np.arange(n), np.maximum(lengths - 2, 0)], _NEG)
    return np.logaddexp(last, before)


def best_path(logp: np.ndarray) -> tuple[int, ...]:
    """The recogniser's own reading of the line: the best path, repeats merged, blanks dropped."""
    out, prev = [], BLANK
    for c in logp.argmax(axis=1).tolist():
        if c != prev:
            out.append(c)
        prev = c
    return _tidy(out)


def player_forms(name: str) -> list[tuple[int, ...]]:
    """How one player's name is written: as the roster has it, by surname alone (the last word),
    or the surname after an initial the roster may not give ("J Hill", "J. Hill"); a hyphen in a
    name ("Walker-Smith") written or left out."""
    words = name.split()
    if not words:
        return []
    surname = encode(words[-1])
    forms = [encode(name), surname, (WILD,) + surname]
    if len(words) > 1:
        forms.append(encode(words[0][:1]) + surname)
    forms += [tuple(c for c in f if c != SEP) for f in forms if SEP in f]
    return list(dict.fromkeys(f for f in forms if f))


def pair_variants(players: tuple[str, str]) -> list[tuple[int, ...]]:
    """How a pair writes its names on a sheet: either order, with a separator or without, each
    player as :func:`player_forms` writes them."""
    forms = [player_forms(p) for p in players]
    out: list[tuple[int, ...]] = []
    for a in forms[0]:
        for b in forms[1]:
            for x, y in ((a, b), (b, a)):
                for joined in (x + (SEP,) + y, x + y):
                    if joined not in out:
                        out.append(joined)
    return out


SIDE_VARIANTS = {"ns": ("N/S", "NS", "North South", "North/South"),
                 "ew": ("E/W", "EW", "East West", "East/West")}


@dataclass
class LineScores:
    """One line's log-likelihoods: ``scores`` per candidate key, ``free`` the recogniser's own
    reading's (the reference for "none of these"), ``read`` that reading as text."""

    scores: dict[str, float]
    free: float
    read: str


def score_line(logp: np.ndarray, candidates: dict[str, list[tuple[int, ...]]],
               temperature: float = 1.0) -> LineScores:
    """Each candidate's log-likelihood on a line's folded frames: the log of the mean of its
    variants' CTC probabilities (a pair with more ways to write its names gains nothing by it)."""
    lp = temper(logp, temperature)
    # the wildcard's column: any one letter
    lp = np.concatenate([lp, np.logaddexp.reduce(lp[:, 1:len(LETTERS) + 1], axis=1)[:, None]],
                        axis=1)
    keys, targets, owner = list(candidates), [], []
    for k in keys:
        for v in candidates[k]:
            targets.append(v)
            owner.append(k)
    free_code = best_path(lp[:, :CLASSES])
    values = ctc_log_likelihoods(lp, targets + [free_code]) if targets or free_code else np.zeros(1)
    scores: dict[str, float] = {}
    for k in keys:
        vals = [values[i] for i, o in enumerate(owner) if o == k]
        scores[k] = float(np.logaddexp.reduce(vals) - np.log(len(vals))) if vals else _NEG
    return LineScores(scores, float(values[-1]), decode_classes(free_code))
