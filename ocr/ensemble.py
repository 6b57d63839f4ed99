"""The readers of a cell together: the cell networks (an ensemble of ocr/cellnet.py's networks
trained alike from different seeds), the digit network's opinion (ocr/digitnet.py) and the second
reader (ocr/ppocr.py) -- each prepared cell's N-best strings with their probabilities.

The networks propose strings; every proposed string is then scored exactly under every network
(CTC forward probability, summed over alignments) and the networks' probabilities averaged: the
average of string probabilities -- not of the per-frame outputs, whose spikes may sit one frame
apart from one network to the next -- keeps a string that only one network believes at a share
that reflects the disagreement.  The digit network reweighs number strings digit by digit, and on
the cells the networks are unsure of the second reader's opinion is mixed in (:func:`combine`).
Every threshold and share is a ReaderSettings field; a reading's version names them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ocr.cellnet import CellNet, default_paths, photo_paths
from ocr.ctc import best_path, ctc_nbest, ctc_string_probs
from ocr.digitnet import MODEL_PATH as DIGITS_PATH
from ocr.digitnet import DigitNet, opinions
from ocr.ppocr import LineReader, default_reader, mark, to_aspect, writing_crop
from ocr.prep import Cut
from ocr.runtime import digest
from ocr.settings import ReaderSettings

NUMBER_SYMBOLS = "0123456789-"
DEFAULT = ReaderSettings()
# readings stored by rounds 11-12 name the digit network without its threshold, which was this
DIGITS_UNSURE_UNMARKED = 0.98
# The reader's version ends with this (see _version): "look2", its cells get a second look when
# the first finds them empty (round 14); "odds", its readings carry their one-digit variants' odds
# and dealer letters are read by the cascade of cell networks, not the first alone (round 15);
# "cal", its "none of these" is calibrated and its readings carry the sheet's doubt, by which
# reconciliation widens it (round 16: readings without the mark carry "none" already widened);
# "dots", its cut keeps a digit a fax broke into dots beside a solid one or written fainter, and
# clears faint shading from its margins; "half", its "none of these" is half the mass its beam left
# uncovered and the digit network's share of it 0.6 (round 19: the same networks read many cells
# differently, so stored readings say which)
PREPARE_MARK = "look2-odds-cal-dots-half"


@dataclass(frozen=True)
class CellReader:
    """One network or an ensemble of networks trained alike from different seeds, with the digit
    network's opinion on number cells when there is one."""

    nets: tuple[CellNet, ...]
    digits: DigitNet | None = None  # a second opinion on each digit of a number (ocr/digitnet.py)

    def version_with(self, second: str | None, settings: ReaderSettings = DEFAULT) -> str:
        """:attr:`version` with a second reader's mark (ocr.ppocr.mark) among its parts."""
        return _version([n.digest for n in self.nets], self.digits.digest if self.digits else None, second, settings)

    @property
    def version(self) -> str:
        """Which networks these are: their weights files' digests joined by '+', the digit
        network's as 'digits-DIGEST' (kept with every reading, so a stored result says which reader
        made it); see :func:`_version`."""
        return _version([n.digest for n in self.nets], self.digits.digest if self.digits else None)

    def nbest(self, inputs: np.ndarray, allowed: list[str | None], beam: int = 16,
              cuts: list[Cut | None] | None = None, first: list[np.ndarray] | None = None,
              settings: ReaderSettings = DEFAULT) -> list[list[tuple[str, float]]]:
        """The most probable strings of each input with their (averaged) probabilities, best first.

        The first network's beam search proposes the strings, each other network adds its best
        path (the beam of every network costs more and found the same readings, 0.05 % apart on
        the benchmark sheets); then every proposal is scored under every network.  The other
        networks read only the cells whose best string the first network gives less than
        ``settings.ensemble_unsure`` (a cascade).  With the inputs' cuts (ocr.prep.prepare_cut)
        and a digit network, number strings the first network is less sure of than
        ``settings.digits_unsure`` are also weighed by the digit network's reading of each digit in
        the cell image itself.  ``first``: the first network's frames of ``inputs``, when already read."""
        first = self.nets[0].read(inputs, settings) if first is None else first
        proposals = [ctc_nbest(first[i], beam=beam, allowed=allowed[i]) for i in range(len(inputs))]
        # the other networks read the cells the first one is not sure of (None elsewhere)
        ask = [i for i in range(len(inputs)) if not proposals[i] or proposals[i][0][1] < settings.ensemble_unsure]
        per_net: list[list] = [first]
        for net in self.nets[1:]:
            lps: list = [None] * len(inputs)
            for i, lp in zip(ask, net.read(inputs[ask], settings) if ask else [], strict=True):
                lps[i] = lp
            per_net.append(lps)
        # the digit network is asked about number cells the first network is not sure of
        numbers = [] if self.digits is None or cuts is None else [
            i for i in range(len(inputs)) if (allowed[i] is None or any(ch.isdigit() for ch in allowed[i]))
            and proposals[i] and proposals[i][0][1] < settings.digits_unsure]
        if not numbers and len(self.nets) == 1:
            return proposals
        ops = dict(zip(numbers, opinions(self.digits, [cuts[i] for i in numbers], [per_net[0][i] for i in numbers],
                                         [proposals[i] for i in numbers], settings), strict=True)) if numbers else {}
        strings = [sorted({s for s, _ in proposals[i]} | {best_path(lps[i], allowed[i]) for lps in per_net[1:] if lps[i] is not None}
                          | (set(ops[i].variants) if i in ops else set()))
                   for i in range(len(inputs))]
        scored = [_scored_where_read(lps, strings) for lps in per_net]
        out = []
        for i, ss in enumerate(strings):
            mean = np.mean([sc[i] for sc in scored if sc[i] is not None], axis=0)
            if i in ops:
                mean = ops[i].reweigh(ss, mean, settings.digit_share)
            out.append(sorted(zip(ss, mean.tolist(), strict=True), key=lambda kv: -kv[1])[:beam])
        return out


def _scored_where_read(lps: list[np.ndarray | None], strings: list[list[str]]) -> list[np.ndarray | None]:
    """:func:`ctc_string_probs` of the inputs a network read (``lps[i]`` not None); None for the others."""
    read = [i for i, lp in enumerate(lps) if lp is not None]
    out: list[np.ndarray | None] = [None] * len(lps)
    for i, sc in zip(read, ctc_string_probs([lps[i] for i in read], [strings[i] for i in read]), strict=True):
        out[i] = sc
    return out


def variant_odds(log_probs: list[np.ndarray], bests: list[str],
                 settings: ReaderSettings = DEFAULT) -> list[dict[int, float] | None]:
    """For each input's best number string, its one-digit variants' probabilities under the
    network whose frames ``log_probs`` are, as log10 of their ratio to the best string's, rounded
    to 0.1; only those >= ``settings.near_floor`` ({}: measured, none that likely).  None where
    nothing was measured: the best is not a number, or that network gives it no probability at all
    (the string came from another network), so the odds against it say nothing."""
    # (a last 0 stays: every score ends in 0)
    variants = [[s[:k] + d + s[k + 1:] for k in range(len(s) - s.endswith("0")) for d in "0123456789" if d != s[k]]
                if s.isdigit() else [] for s in bests]
    keep = [i for i, v in enumerate(variants) if v]
    out: list[dict[int, float] | None] = [None for _ in bests]
    if not keep:
        return out
    probs = ctc_string_probs([log_probs[i] for i in keep], [[bests[i]] + variants[i] for i in keep])
    for i, p in zip(keep, probs, strict=True):
        if p[0] <= 0:
            continue
        ratio = np.log10(np.maximum(p[1:], 1e-300) / p[0])
        out[i] = {int(v): round(float(r), 1) for v, r in zip(variants[i], ratio, strict=True)
                  if r >= settings.near_floor and not (len(v) > 1 and v[0] == "0")}
    return out


# -- the second reader on the cells the networks are unsure of --------------------------------------


def number_strings(inputs: np.ndarray, cuts: list[Cut | None], first: list[np.ndarray], net: CellReader,
                   second: LineReader | None, settings: ReaderSettings = DEFAULT) -> tuple[list, list, int]:
    """The N-best strings of prepared number cells (``inputs``, with their ``cuts`` and the first
    network's frames ``first``): both readers' where the cell networks' best is less sure than
    ``settings.second_unsure`` (:func:`combine`), else the networks'; the networks' own strings
    (the sheet's doubt is measured on them: reconciliation's trust was fitted to it); and how many
    cells the second reader read."""
    nets = net.nbest(inputs, [NUMBER_SYMBOLS] * len(inputs), beam=settings.beam, cuts=cuts, first=first,
                     settings=settings)
    found = list(nets)
    ask = [i for i, f in enumerate(nets) if second is not None and cuts[i] is not None
           and (not f or f[0][1] < settings.second_unsure)]
    if ask:
        crops = [second_crop(cuts[i], settings) for i in ask]
        for i, lp in zip(ask, second.cell_probs(crops, settings), strict=True):
            found[i] = combine(nets[i], lp, first[i], settings)
    asked = set(ask)
    found = [tempered(f, settings.combined_power if i in asked else settings.nets_power) for i, f in enumerate(found)]
    return found, nets, len(ask)


def tempered(found: list[tuple[str, float]], power: float) -> list[tuple[str, float]]:
    """Strings' probabilities calibrated: each (and "none of these", the mass they leave) raised
    to ``power`` and renormalised -- below 1 a reader's certainty is tempered, the order kept."""
    if power == 1.0 or not found:
        return found
    p = np.array([q for _, q in found], float)
    q = np.power(np.append(p, max(0.0, 1.0 - p.sum())), power)
    q /= q.sum()
    return [(s, float(v)) for (s, _), v in zip(found, q[:-1], strict=True)]


def second_crop(cut: Cut, settings: ReaderSettings = DEFAULT) -> np.ndarray:
    """The writing of a prepared cell as the second reader is shown it: the cut's ink (paper
    white, the cell's own resolution) from its rows and columns, with paper around it."""
    grey = (255.0 * (1.0 - cut.ink)).astype(np.uint8)
    x1 = cut.x1 if cut.x1 > 0 else grey.shape[1]
    crop = writing_crop(grey, (cut.y0, cut.y1), (cut.x0, x1), settings.second_margin)
    return to_aspect(crop, settings.second_max_aspect)


def combine(nets: list[tuple[str, float]], second_lp: np.ndarray, first_lp: np.ndarray,
            settings: ReaderSettings = DEFAULT) -> list[tuple[str, float]]:
    """Both readers' view of one cell: the strings either proposes (the cell networks' N-best,
    the second reader's beam), each scored under both -- the cell networks' probability as they
    gave it (a string only the second reader proposed: under the first network's frames), the
    second reader's by the CTC forward pass over its frames ``second_lp`` -- and mixed, the second
    reader's share ``second_share`` (``second_share_lost`` where the networks' best is below
    ``second_lost``, at least ``second_share_sure`` where the second reader's best is at least
    ``second_sure`` and surer than the networks' where the two read another number of digits, at
    least ``second_sure_same`` where as many; their "none of these" times ``second_none``), or
    with ``second_share`` 0 combined as p_nets ** nets_weight x p_second ** second_weight, with
    "none of these" (the mass each left off the listed strings) combined alike; renormalised, so
    the strings' total is what the readers together did not leave to "none"."""
    own = dict(nets)
    proposed = [s for s, _ in ctc_nbest(second_lp, beam=settings.second_beam, allowed=NUMBER_SYMBOLS)]
    strings = list(own) + [s for s in proposed if s not in own]
    extra = [s for s in strings if s not in own]
    if extra:
        own.update(zip(extra, ctc_string_probs([first_lp], [extra])[0].tolist(), strict=True))
    p_nets = np.array([own[s] for s in strings], float)
    p_second = ctc_string_probs([second_lp], [strings])[0]
    left = (max(1e-6, 1.0 - p_nets.sum()), max(1e-6, 1.0 - p_second.sum()))
    if settings.second_share > 0:  # a mixture: neither reader's certainty is multiplied by the other's
        # the networks' best so unsure: trust the other more -- where it reads a number other than
        # 0 (faint or fax-dotted ink it reads as nothing or as a 0: a confident 0 there is wrong)
        zero = sum(p for s, p in zip(strings, p_second.tolist(), strict=True) if s.strip("-").lstrip("0") == "")
        number = bool(proposed) and proposed[0].strip("-").lstrip("0") != "" and zero < settings.second_lost
        lost = number and (not nets or nets[0][1] < settings.second_lost)
        w = max(settings.second_share, settings.second_share_lost) if lost else settings.second_share
        # the second reader, sure of its number, is surer than the networks: its reading leads (on
        # hands unlike their training's the networks read a stroke as an extra digit or one digit
        # for another -- bench/RESULTS-read.md)
        k = int(np.argmax(p_second)) if len(p_second) else -1
        best_nets = nets[0][0].strip("-") if nets else ""
        sure = settings.second_sure if k >= 0 and len(strings[k].strip("-")) != len(best_nets) else settings.second_sure_same
        if number and k >= 0 and p_second[k] >= sure and p_second[k] > (nets[0][1] if nets else 0.0):
            w = max(w, settings.second_share_sure)
        q = (1 - w) * np.append(p_nets, left[0]) / (p_nets.sum() + left[0]) + w * np.append(p_second, left[1]) / (p_second.sum() + left[1])
        q[-1] *= settings.second_none
    else:
        a, b = settings.nets_weight, settings.second_weight
        log = a * np.log(np.maximum(np.append(p_nets, left[0]), 1e-300)) + b * np.log(np.maximum(np.append(p_second, left[1]), 1e-300))
        q = np.exp(log - log.max())
    q /= q.sum()
    out = sorted(zip(strings, q[:-1].tolist(), strict=True), key=lambda kv: -kv[1])
    return [(s, p) for s, p in out[: max(settings.beam, settings.n_best)] if p > 0]


# -- the committed readers and their version ------------------------------------------------------


def _version(nets: list[str], digits: str | None, second: str | None = None, settings: ReaderSettings = DEFAULT) -> str:
    """A reader's version from its networks' digests: joined by '+'; each network after the first
    marked '-below<ensemble_unsure>' when it reads only the cells the first is less sure of (round
    12's cascade: the same networks read every cell before it); the digit network as
    'digits-DIGEST', marked '-below<digits_unsure>' unless it is asked below 0.98 (as in rounds
    11-12, whose stored readings carry no mark); then the second reader's mark (ocr.ppocr.mark),
    when it reads too; the calibration's powers ("power<nets>-<combined>") unless both are 1;
    last, PREPARE_MARK (readings stored before round 14 carry none: there, cells the first look
    found empty were read as blank; round 14's end "+look2")."""
    cascade = f"-below{settings.ensemble_unsure:g}" if settings.ensemble_unsure <= 1.0 else ""
    asked = f"-below{settings.digits_unsure:g}" if settings.digits_unsure != DIGITS_UNSURE_UNMARKED else ""
    tempered = [f"power{settings.nets_power:g}-{settings.combined_power:g}"] \
        if (settings.nets_power, settings.combined_power) != (1.0, 1.0) else []
    return "+".join(nets[:1] + [d + cascade for d in nets[1:]] + ([f"digits-{digits}{asked}"] if digits else [])
                    + ([second] if second else []) + tempered + [PREPARE_MARK])


def _digits_path() -> Path | None:
    """The digit network this process reads with: the committed one, or none when there is none or
    RUBBERSCAN_DIGITNET=0 (~0.1 s per sheet faster, less accurate: bench/RESULTS-read.md)."""
    wanted = os.environ.get("RUBBERSCAN_DIGITNET", "").strip().lower()
    if wanted not in ("", "0", "1"):
        raise ValueError(f"RUBBERSCAN_DIGITNET must be 0 or 1, not {wanted!r}")
    return DIGITS_PATH if wanted != "0" and DIGITS_PATH.exists() else None


@lru_cache(maxsize=1)
def default_net() -> CellReader:
    """The committed networks, loaded once per process (read-only afterwards).
    RUBBERSCAN_NETWORKS=1 reads with the first network alone: less accurate, and since the
    cascade (nbest) hardly faster (bench/RESULTS-read.md); RUBBERSCAN_DIGITNET=0 without the digit network."""
    digits = _digits_path()
    return CellReader(tuple(CellNet.load(p) for p in default_paths()), DigitNet.load(digits) if digits else None)


@lru_cache(maxsize=1)
def photo_net() -> CellReader | None:
    """The photo networks (ocr.cellnet.photo_paths) with the committed digit network, loaded once
    per process; None when they are not installed (a photo is then read by the scan networks)."""
    paths = photo_paths()
    if not paths:
        return None
    return CellReader(tuple(CellNet.load(p) for p in paths), default_net().digits)


def reader_versions(settings: ReaderSettings = DEFAULT) -> frozenset[str]:
    """Every version a sheet read by the default reader may carry: reader_version's, and the photo
    networks' (a photographed table's reading, ocr.read.read_table) where they are installed and used."""
    photo = photo_paths() if settings.photo_networks else []
    return frozenset({reader_version(settings)}
                     | ({_files_version(photo, settings.for_photo_networks())} if photo else set()))


def reader_version(settings: ReaderSettings = DEFAULT) -> str:
    """What the reader reads with by default, without loading the cell networks: their digests
    joined by '+', and the installed second reader's mark (the string ocr.read.read_table stores as
    its reading's ``meta["reader"]``)."""
    return _files_version(default_paths(), settings)


def _files_version(paths, settings: ReaderSettings) -> str:
    """The version a reading by the cell networks in ``paths`` carries, from the files' digests."""
    digits = _digits_path()
    second = default_reader() if settings.use_second else None
    return _version([digest(p.read_bytes()) for p in paths], digest(digits.read_bytes()) if digits else None,
                    mark(second.digest, settings) if second is not None else None, settings)
