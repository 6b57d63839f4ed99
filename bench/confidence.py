"""Is a confidence shown honest?  Written numbers counted by the band of the confidence the output
shows for them, and how many of each band are right (bench_photo_numbers.py, bench_mistakes.py)."""

from __future__ import annotations

from collections import Counter

BANDS = (">= 0.95", "0.5-0.95", "< 0.5")


def confidence_band(p: float) -> str:
    """The band of BANDS a confidence falls in."""
    return BANDS[0] if p >= 0.95 else BANDS[1] if p >= 0.5 else BANDS[2]


def tally(seen: Counter, group: str, confidence: float, right: bool) -> None:
    """Count one number shown at ``confidence`` under ``group`` in ``seen``."""
    band = confidence_band(confidence)
    seen[f"{group} {band}"] += 1
    seen[f"{group} {band} right"] += right


def calibration(seen: Counter, group: str) -> str:
    """"band: right of shown (%)" for each band of ``group`` counted in ``seen`` by :func:`tally`."""
    parts = []
    for band in BANDS:
        n, right = seen[f"{group} {band}"], seen[f"{group} {band} right"]
        parts.append(f"{band}: {right} of {n} ({100.0 * right / max(1, n):.1f} %)")
    return "; ".join(parts)
