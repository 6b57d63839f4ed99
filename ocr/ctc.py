"""CTC decoding of a reader's frames: the most probable strings (a prefix beam search), any given
string's probability summed over all its alignments (the forward pass), the best single path, and
where a string's most probable alignment puts each character (Viterbi).

Frames are (T, classes) log-probabilities over the CTC blank (class 0) and ALPHABET (class i + 1),
the symbols every cell reader here emits (ocr/cellnet.py's networks; ocr/ppocr.py's frames are
mapped onto them).
"""

from __future__ import annotations

import numpy as np

ALPHABET = "0123456789-NESW"  # CTC blank is class 0; ALPHABET[i] is class i + 1


def best_path(log_probs: np.ndarray, allowed: str | None = None) -> str:
    """The string of the most probable single alignment (greedy CTC decoding)."""
    return best_path_frames(log_probs, allowed)[0]


def best_path_frames(log_probs: np.ndarray, allowed: str | None = None) -> tuple[str, list[int]]:
    """:func:`best_path`'s string and, for each of its characters, its strongest frame in its run."""
    lp = np.asarray(log_probs)
    keep = [0] + [i + 1 for i, ch in enumerate(ALPHABET) if allowed is None or ch in allowed]
    path = np.asarray(keep)[np.argmax(lp[:, keep], axis=1)].tolist()
    chars: list[str] = []
    frames: list[int] = []
    prev = 0
    for t, c in enumerate(path):
        if c != 0 and c != prev:
            chars.append(ALPHABET[c - 1])
            frames.append(t)
        elif c != 0 and lp[t, c] > lp[frames[-1], c]:
            frames[-1] = t
        prev = c
    return "".join(chars), frames


def ctc_string_probs(log_probs: list[np.ndarray], strings: list[list[str]]) -> list[np.ndarray]:
    """P(string | frames) for each given string of each input (CTC forward pass, all inputs
    and strings in one batch).  ``log_probs[i]`` is input i's (T_i, classes) frames."""
    items = [(i, s) for i, ss in enumerate(strings) for s in ss]
    out = [np.zeros(len(ss)) for ss in strings]
    if not items:
        return out
    n_t = max(lp.shape[0] for lp in log_probs)
    frames = np.zeros((len(log_probs), n_t, len(ALPHABET) + 1))
    frames[:, :, 0] = 1.0  # inputs run narrower are padded with frames of "nothing here"
    for i, lp in enumerate(log_probs):
        frames[i, : lp.shape[0]] = np.exp(lp)
    n_s = 2 * max(len(s) for _, s in items) + 1
    ext = np.zeros((len(items), n_s), int)  # blank, a, blank, b, blank ...
    chars = "".join(s for _, s in items)
    sizes = np.array([len(s) for _, s in items])
    if set(chars) <= _SYMBOLS:
        # every string's classes set at once (one assignment a string cost more than the forward pass)
        at = np.arange(len(chars)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        ext[np.repeat(np.arange(len(items)), sizes), 1 + 2 * at] = np.frombuffer(chars.translate(_CLASS).encode("latin-1"),
                                                                                 np.uint8)
    else:  # (a symbol not in ALPHABET: its ValueError, as ever)
        for k, (_, s) in enumerate(items):
            ext[k, 1: 2 * len(s): 2] = [ALPHABET.index(ch) + 1 for ch in s]
    length = 2 * sizes + 1
    valid = np.arange(n_s)[None, :] < length[:, None]
    skip = np.zeros((len(items), n_s), bool)
    skip[:, 2:] = (ext[:, 2:] != 0) & (ext[:, 2:] != ext[:, :-2])
    owner = np.array([i for i, _ in items])
    emit = frames[owner[:, None, None], np.arange(n_t)[None, :, None], ext[:, None, :]]  # (N, T, S)
    alpha = np.zeros((len(items), n_s))
    alpha[:, 0] = emit[:, 0, 0]
    if n_s > 1:  # (a batch of nothing but empty strings has the blank state alone)
        alpha[:, 1] = emit[:, 0, 1] * (length > 1)
    for t in range(1, n_t):
        a = alpha.copy()
        a[:, 1:] += alpha[:, :-1]
        a[:, 2:] += np.where(skip[:, 2:], alpha[:, :-2], 0.0)
        alpha = a * emit[:, t] * valid
    rows = np.arange(len(items))
    end = alpha[rows, length - 1] + np.where(length > 1, alpha[rows, np.maximum(length - 2, 0)], 0.0)
    k = 0
    for i, ss in enumerate(strings):
        out[i] = end[k:k + len(ss)]
        k += len(ss)
    return out


_SYMBOLS = set(ALPHABET)
_CLASS = {ord(ch): i + 1 for i, ch in enumerate(ALPHABET)}  # a symbol -> its class (for str.translate)


def ctc_nbest(log_probs: np.ndarray, beam: int = 16, allowed: str | None = None) -> list[tuple[str, float]]:
    """CTC prefix beam search over one cell's frames (T, classes): the most probable strings
    with their probabilities (summed over alignments), best first.  ``allowed`` limits the
    symbols (e.g. digits and dash for a number cell)."""
    probs = np.exp(np.asarray(log_probs, np.float64))
    symbols = np.array([i + 1 for i, ch in enumerate(ALPHABET) if allowed is None or ch in allowed])
    # symbols negligible in a frame are skipped; plain Python floats in the loop (faster than NumPy scalars)
    actives = [symbols[m].tolist() for m in probs[:, symbols] > 1e-4]
    # prefix -> (p ending in blank, p ending in non-blank)
    beams: dict[tuple[int, ...], tuple[float, float]] = {(): (1.0, 0.0)}
    for p, active in zip(probs.tolist(), actives, strict=True):
        if not active:  # a frame of "nothing here": every prefix just goes on
            beams = {k: ((pb + pnb) * p[0], pnb * p[k[-1]] if k else 0.0) for k, (pb, pnb) in beams.items()}
            continue
        nxt: dict[tuple[int, ...], list[float]] = {}
        for prefix, (pb, pnb) in beams.items():
            total = pb + pnb
            e = nxt.setdefault(prefix, [0.0, 0.0])
            e[0] += total * p[0]
            if prefix:
                e[1] += pnb * p[prefix[-1]]  # repeated symbol without a blank: same prefix
            for s in active:
                ext = prefix + (s,)
                f = nxt.setdefault(ext, [0.0, 0.0])
                if prefix and prefix[-1] == s:
                    f[1] += pb * p[s]  # a repeat needs a blank in between
                else:
                    f[1] += total * p[s]
        ranked = sorted(nxt.items(), key=lambda kv: -(kv[1][0] + kv[1][1]))[:beam]
        beams = {k: (v[0], v[1]) for k, v in ranked}
    out = [("".join(ALPHABET[s - 1] for s in k), v[0] + v[1]) for k, v in beams.items()]
    out.sort(key=lambda kv: -kv[1])
    return out


def ctc_align(log_probs: np.ndarray, string: str) -> list[int]:
    """For each character of ``string``, the frame where the most probable CTC alignment of the
    string to ``log_probs`` (T, classes) emits it most strongly; -1 where it cannot be aligned
    (more characters than frames).  Plain Python: T and the string are short."""
    if not string or len(log_probs) == 0:
        return [-1] * len(string)
    ext = [0]
    for ch in string:
        ext += [ALPHABET.index(ch) + 1, 0]
    n_s = len(ext)
    lp = np.asarray(log_probs, np.float64)[:, ext].tolist()  # (T, states)
    neg = float("-inf")
    score = [neg] * n_s
    score[0], score[1] = lp[0][0], lp[0][1]
    back: list[list[int]] = [[0] * n_s]
    for row in lp[1:]:
        new, step = [neg] * n_s, [0] * n_s
        for s in range(n_s):
            best, k = score[s], 0
            if s >= 1 and score[s - 1] > best:
                best, k = score[s - 1], 1
            if s >= 2 and ext[s] != 0 and ext[s] != ext[s - 2] and score[s - 2] > best:
                best, k = score[s - 2], 2
            new[s], step[s] = best + row[s], k
        score = new
        back.append(step)
    s = n_s - 1 if score[n_s - 1] >= score[n_s - 2] else n_s - 2
    if score[s] == neg:
        return [-1] * len(string)
    frames = [-1] * len(string)
    for t in range(len(lp) - 1, -1, -1):
        if s % 2 == 1:
            k = s // 2
            if frames[k] < 0 or lp[t][s] >= lp[frames[k]][s]:
                frames[k] = t
        s -= back[t][s]
    return frames
