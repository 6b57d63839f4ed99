"""Fit how the readers are combined (ReaderSettings: second_unsure, second_share or nets_weight /
second_weight) on cells none of the benchmarks measure on.

    OMP_NUM_THREADS=1 .venv/bin/python -m bench.fit_reader [--unipen 1500] [--sheets 40] [--grid ...] [--cache F]
    measuring chosen settings on the benchmark's cells (UNIPEN part 0 as bench_cells.py draws them, ORAND):
    ... -m bench.fit_reader --part 0 --seed 1 --unipen 1000 --sheets 0 --orand 1080 --set NAME=VALUE ...

The fitting cells: numbers written by UNIPEN's writers of part 1 (train.unipen.split_writers; the
training cells' validation writers, never trained on; bench_cells.py measures part 0), as scores
(multiples of ten, the product's priors) and as any digits (no multiple-of-ten prior); and the
number cells of generated sheets with seeds from 3,000,000 (training sheets are 2,000,000-2,000,999,
the benchmarks 50,000-130,199), cut by the product's own geometry (their MNIST hand draws on the
held-out digits, as the benchmarks' do).  Every reader reads every cell once (the second reader
too, so any threshold can be tried); then each setting of the grid recombines their strings
(ocr.ensemble.combine) and the values are counted as bench_cells.py counts them, per group: exact,
truth in the top 3, readings >= 0.95 and how many of them are right, the truth's NLL.  The
objective printed last is the mean of the groups' NLL.
"""

from __future__ import annotations

import argparse
import itertools
import math
import pickle
import statistics
import sys
import time
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from bench.bench_cells import score, unipen_numbers
from ocr.ctc import ALPHABET
from ocr.ensemble import NUMBER_SYMBOLS, combine, default_net, second_crop, tempered
from ocr.ppocr import LineReader, default_reader
from ocr.prep import prepare_cut
from ocr.read import number_reading
from ocr.settings import ReaderSettings

FIT_SHEETS = 3_000_000  # generated sheets no benchmark and no training uses


def sheet_cells(count: int, first: int = FIT_SHEETS) -> tuple[list[np.ndarray], list[str], list[str]]:
    """The written number cells of ``count`` generated sheets as the pipeline cuts them: images,
    the digits written and the hand that wrote them."""
    from ocr.pipeline import read_file
    from samples.generate import generate_sheet

    images, truths, hands = [], [], []
    for seed in range(first, first + count):
        data, truth = generate_sheet(seed)
        outcome = next(iter(read_file(f"fit-{seed}", data=data, name=f"fit-{seed}")))
        if not outcome.ok:
            continue
        want = {(c["row"], c["key"]): c for c in truth["cells"] if c["key"] in ("ns", "ew", "cum_ns", "cum_ew")}
        for cell in outcome.table.cells:
            c = want.get((cell.row, cell.key))
            text = ((c or {}).get("text") or "").strip()
            if c is not None and text.isdigit():
                images.append(cell.image)
                truths.append(text)
                hands.append(f"sheets, {c.get('hand')}")
    return images, truths, hands


def read_all(images: list[np.ndarray], settings: ReaderSettings) -> list[tuple | None]:
    """Each cell as every reader reads it: (the networks' N-best, the first network's frames, the
    second reader's frames over the characters any mapping setting may use, :func:`_narrow`); None
    for a cell read as empty."""
    net, second = default_net(), default_reader()
    cols = _narrow(second)[1]
    prepared = [prepare_cut(g, settings) for g in images]
    inked = [k for k, (_, cut) in enumerate(prepared) if cut is not None]
    out: list[tuple | None] = [None] * len(images)
    for start in range(0, len(inked), 256):
        part = inked[start:start + 256]
        inputs = np.stack([prepared[k][0] for k in part])
        cuts = [prepared[k][1] for k in part]
        first = net.nets[0].read(inputs, settings)
        found = net.nbest(inputs, [NUMBER_SYMBOLS] * len(part), beam=settings.beam, cuts=cuts, first=first,
                          settings=settings)
        crops = [second_crop(c, settings) for c in cuts]
        lps = second.probs(crops, settings.second_min_width, settings.second_batch, keep=lambda p: p[:, cols])
        for k, f, fr, lp in zip(part, found, first, lps, strict=True):
            out[k] = (f, fr, lp)
    return out


# characters the second reader's frames keep in a cache: the networks' symbols, what
# second_ignored / second_as_one may name, and marks that look like a digit
KEPT = ALPHABET + ".,'`·:;/_-—–=~ |\\lIi!()[]{}oOQDzZsSbgqBGT?ØøΦφθ$&"


@lru_cache(maxsize=1)
def _narrow(second: LineReader) -> tuple[LineReader, list[int]]:
    """A reader over the cache's characters only (blank first) and their columns in ``second``'s frames."""
    index = {c: i for i, c in enumerate(second.chars)}
    chars = [c for c in dict.fromkeys(KEPT) if c in index]
    return LineReader(("",) + tuple(chars), b"", "narrow"), [0] + [index[c] for c in chars]


def second_frames(narrow: np.ndarray, settings: ReaderSettings) -> np.ndarray:
    """A cached cell's second-reader frames mapped to the networks' symbols as ``settings`` map them."""
    return _narrow(default_reader())[0].cell_frames(narrow, settings)


_COMBINED: dict[tuple, list] = {}
_MAPPED: dict[tuple, np.ndarray] = {}


def readings(read: list[tuple | None], settings: ReaderSettings) -> list:
    blank = number_reading([("", settings.blank_prob)], settings=settings)
    out = []
    for r in read:
        if r is None:
            out.append(blank)
            continue
        f, fr, narrow = r
        ask = settings.use_second and (not f or f[0][1] < settings.second_unsure)
        if ask:
            mkey = (id(r), settings.second_ignored, settings.second_as_one, settings.second_as_digit)
            if mkey not in _MAPPED:
                _MAPPED[mkey] = second_frames(narrow, settings)
            lp = _MAPPED[mkey]
            key = mkey + (settings.second_share, settings.nets_weight, settings.second_weight,
                          settings.second_lost, settings.second_share_lost, settings.second_sure, settings.second_share_sure,
                          settings.second_none, settings.second_sure_same)
            if key not in _COMBINED:  # the same combination under another threshold or power
                _COMBINED[key] = combine(f, lp, fr, settings)
            found = tempered(_COMBINED[key], settings.combined_power)
        else:
            found = tempered(f, settings.nets_power)
        out.append(number_reading(found, settings=settings))
    return out


GRIDS = {
    "mix": [dict(second_unsure=u, second_share=w) for u in (0.95, 0.99, 0.999, 1.01) for w in (0.3, 0.5, 0.7)],
    "lost": [dict(second_lost=t, second_share_lost=w) for t in (0.0, 0.2, 0.3, 0.4, 0.5) for w in (0.5, 0.7, 0.9)],
    "sure": [dict(second_sure=t, second_share_sure=w) for t in (0.9, 0.95, 0.98, 0.99, 0.995, 1.01) for w in (0.5, 0.7, 0.9)],
    "one": [dict(second_as_one=c) for c in ("", "/", "/|", "/|l", "/|lI")],
    "combined": [dict(combined_power=b) for b in (0.9, 0.8, 0.7, 0.6, 0.5)],
    "power": [dict(second_unsure=u, nets_power=a, combined_power=b)
              for u in (0.95, 0.99, 0.999) for a in (1.0, 0.8, 0.6, 0.45) for b in (1.0, 0.8, 0.6, 0.45)],
    "product": [dict(second_unsure=u, second_share=0.0, nets_weight=a, second_weight=b)
                for u in (0.95, 0.99, 0.999, 1.01) for a in (0.35, 0.5, 0.75, 1.0) for b in (0.35, 0.5, 0.75, 1.0)],
}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--unipen", type=int, default=1500, help="UNIPEN numbers of each kind (part --part)")
    ap.add_argument("--part", type=int, default=1)
    ap.add_argument("--sheets", type=int, default=40, help="generated sheets from seed 3,000,000")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--orand", type=int, default=0, help="ORAND-CAR-A images too (measuring only: never fit on them)")
    ap.add_argument("--grid", choices=sorted(GRIDS), action="append", default=None)
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="instead of a grid: the readers alone and as shipped, then with these ReaderSettings")
    ap.add_argument("--cache", default=None, help="keep every reader's reading of the cells in this file (pickle) "
                    "and read them from it when it is there: another grid without reading again")
    args = ap.parse_args(argv)
    base = ReaderSettings()
    t0 = time.process_time()
    if args.cache and Path(args.cache).exists():
        groups = pickle.loads(Path(args.cache).read_bytes())
        # a group's settings are today's defaults with its own kind of number (a cache keeps those
        # of the code that wrote it)
        groups = {name: (read, truths, replace(base, max_digits=st.max_digits, not_tens_prior=st.not_tens_prior))
                  for name, (read, truths, st) in groups.items()}
    else:
        groups = read_groups(args, base)
        if args.cache:
            Path(args.cache).write_bytes(pickle.dumps(groups))
    print(f"read {sum(len(t) for _, t, _ in groups.values())} cells in {time.process_time() - t0:.0f} s CPU", flush=True)
    results = []
    grid = [dict(use_second=False), dict(second_share=1.0, second_unsure=1.01), {}]
    if args.set:
        grid.append({k: _value(getattr(base, k), v) for k, v in (kv.split("=", 1) for kv in args.set)})
    else:
        grid += list(itertools.chain(*(GRIDS[g] for g in args.grid or sorted(GRIDS))))
    for change in grid:
        stats = {}
        for name, (read, truths, st) in groups.items():
            stats[name] = score(readings(read, replace(st, **change)), truths)
        objective = statistics.fmean(s["nll"] for s in stats.values())
        results.append((objective, change))
        name = {"use_second": "cell networks alone", "second_share": "second reader alone"}.get(next(iter(change), ""), "")
        print(f"{name or change or 'as shipped'}: mean NLL {objective:.4f}", flush=True)
        for name, s in stats.items():
            print(f"    {name}: {s['n']} exact {100 * s['exact']:.2f} % top3 {100 * s['top3']:.2f} % "
                  f"digits {100 * s['digits']:.2f} % >= 0.95: {s['sure']} right {100 * s['sure_right']:.2f} % NLL {s['nll']:.4f}", flush=True)
    results.sort(key=lambda r: r[0])
    print("best (mean NLL, settings):")
    for objective, change in results[:8]:
        print(f"  {objective:.4f} {change}")
    return 0 if all(math.isfinite(r[0]) for r in results) else 1


def _value(old: object, text: str) -> object:
    return text.lower() in ("1", "true") if isinstance(old, bool) else type(old)(text)


def read_groups(args: argparse.Namespace, base: ReaderSettings) -> dict[str, tuple[list, list, ReaderSettings]]:
    """Every reader's reading of the fitting cells, by group: (readings, truths, the group's settings)."""
    groups: dict[str, tuple[list, list, ReaderSettings]] = {}
    if args.orand:
        from bench.bench_cells import orand

        images, truths = orand(args.orand)  # a cheque is no score: up to 7 digits, no multiple-of-ten prior
        st = replace(base, max_digits=7, not_tens_prior=1.0)
        groups["ORAND-CAR-A"] = (read_all(images, st), truths, st)
    for kind, st in (("scores", base), ("digits", replace(base, not_tens_prior=1.0))):
        images, truths = unipen_numbers(args.unipen, args.part, args.seed, kind)
        groups[f"UNIPEN part {args.part}, {kind}"] = (read_all(images, st), truths, st)
    if args.sheets:
        images, truths, hands = sheet_cells(args.sheets)
        read = read_all(images, base)
        for hand in sorted(set(hands)):
            idx = [k for k, h in enumerate(hands) if h == hand]
            groups[hand] = ([read[k] for k in idx], [truths[k] for k in idx], base)
    return groups


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
