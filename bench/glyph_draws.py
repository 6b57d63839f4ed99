"""Which bench_mistakes sheets the MNIST hand wrote with one pool image (default: 288, the "2"
both readers read as "1"), to report the figures with and without those sheets.

    python -m bench.glyph_draws OUT.json FIRST COUNT [FIRST COUNT ...] [--image 288]

Generates each sheet again with bench_mistakes' options (the same draws: the record does not
touch the generator's random state), stops once its cells are written (no scan), and writes
{seed: [texts written with that image]} for every sheet with an MNIST hand; a sheet whose list is
not empty used the image.  ``bench_mistakes --leave-out OUT.json`` leaves those sheets out.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

import samples.generate as generate
import samples.hands as hands
from bench.bench_mistakes import sheet_options


class _Skip(Exception):
    """No MNIST hand on the sheet."""


class _Written(Exception):
    """The cells are written: the draws are all made."""


def draws(seeds: list[int], image: int) -> dict[int, list[str]]:
    """{seed: texts written with pool ``image``} for each sheet of ``seeds`` with an MNIST hand."""
    log: list[tuple[str, list[int]]] = []
    glyph, render, fill = hands._mnist_glyph, hands.Hand.render, generate.fill_form

    def recorded_glyph(ch, rng, height):
        labels = hands.mnist_digits()[1]
        state = rng.getstate()
        k = int(np.flatnonzero(labels == int(ch))[rng.randrange(int((labels == int(ch)).sum()))])
        rng.setstate(state)  # the generator draws exactly as without the record
        if log:
            log[-1][1].append(k)
        return glyph(ch, rng, height)

    def recorded_render(self, text, height):
        log.append((text, []))
        return render(self, text, height)

    def written(page, geom, content, pens, *args):
        if not any(p.hand.kind == "mnist" for p in pens):
            raise _Skip
        fill(page, geom, content, pens, *args)
        raise _Written

    out: dict[int, list[str]] = {}
    hands._mnist_glyph, hands.Hand.render, generate.fill_form = recorded_glyph, recorded_render, written
    try:
        for seed in seeds:
            log.clear()
            try:
                generate.generate_sheet(seed, **sheet_options(seed))
            except _Skip:
                continue
            except _Written:
                out[seed] = [t for t, ks in log if image in ks]
    finally:
        hands._mnist_glyph, hands.Hand.render, generate.fill_form = glyph, render, fill
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("ranges", nargs="+", type=int, help="FIRST COUNT pairs")
    ap.add_argument("--image", type=int, default=288)
    args = ap.parse_args(argv)
    if len(args.ranges) % 2:
        ap.error("ranges come in FIRST COUNT pairs")
    seeds = [s for first, count in zip(args.ranges[::2], args.ranges[1::2], strict=True)
             for s in range(first, first + count)]
    found = draws(seeds, args.image)
    with open(args.out, "w") as fh:
        json.dump(found, fh)
    print(f"{len(found)} sheets with an MNIST hand; {sum(bool(v) for v in found.values())} used image"
          f" {args.image}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
