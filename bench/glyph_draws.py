"""Which bench_mistakes sheets the MNIST hand drew given pool images for (default: those of
samples.hands.MISDRAWN, which it now writes with the next image of the label instead), to report
the figures with and without those sheets, or to make only those sheets again.

    python -m bench.glyph_draws OUT.json FIRST COUNT [FIRST COUNT ...] [--image 288 ...] [--defaults]

Generates each sheet again with bench_mistakes' options (the same draws: the record does not
touch the generator's random state), stops once its cells are written (no scan), and writes
{seed: [texts for which one of the images was drawn]} for every sheet with an MNIST hand; a sheet
whose list is not empty drew one.  ``bench_mistakes --leave-out OUT.json`` leaves those sheets
out; ``bench_mistakes --redraw OUT.json`` makes them again with today's generator.
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


def draws(seeds: list[int], images: set[int], options=sheet_options) -> dict[int, list[str]]:
    """{seed: texts for which one of the pool ``images`` was drawn} for each sheet of ``seeds``
    with an MNIST hand (the draw itself: before MISDRAWN's images are passed over), the sheets
    made with ``options`` (seed -> generate_sheet's options)."""
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
                generate.generate_sheet(seed, **options(seed))
            except _Skip:
                continue
            except _Written:
                out[seed] = [t for t, ks in log if images & set(ks)]
    finally:
        hands._mnist_glyph, hands.Hand.render, generate.fill_form = glyph, render, fill
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("ranges", nargs="+", type=int, help="FIRST COUNT pairs")
    ap.add_argument("--defaults", action="store_true", help="the generator's default sheets"
                    " (bench_read's), not bench_mistakes'")
    ap.add_argument("--image", type=int, action="append", help="a pool image (repeatable;"
                    " default: samples.hands.MISDRAWN's)")
    args = ap.parse_args(argv)
    if len(args.ranges) % 2:
        ap.error("ranges come in FIRST COUNT pairs")
    seeds = [s for first, count in zip(args.ranges[::2], args.ranges[1::2], strict=True)
             for s in range(first, first + count)]
    images = set(args.image or hands.MISDRAWN)
    found = draws(seeds, images, (lambda seed: {}) if args.defaults else sheet_options)
    with open(args.out, "w") as fh:
        json.dump(found, fh)
    print(f"{len(found)} sheets with an MNIST hand; {sum(bool(v) for v in found.values())} drew image(s)"
          f" {', '.join(map(str, sorted(images)))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
