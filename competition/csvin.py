"""The organiser's CSV files (PAIRS.csv, DRAW.csv): a header row naming the columns, in any order
and any case, then a line per record; blank lines skipped, a byte-order mark allowed."""

from __future__ import annotations

import csv
import io
import re

# a pair's or a match's id: what a file name, a URL and a QR code carry safely
ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$")


def records(text: str, columns: tuple[str, ...], source: str, error: type[Exception],
            empty_hint: str = "") -> list[tuple[int, dict[str, str]]]:
    """Each record of ``text`` as (line number, {column: stripped text}); raises ``error`` for a
    file with no lines or a header lacking one of ``columns``."""
    rows = [r for r in csv.reader(io.StringIO(text.lstrip("\ufeff"))) if any(c.strip() for c in r)]
    if not rows:
        raise error(f"{source}: empty; expected a header row {','.join(columns)}{empty_hint}")
    header = [h.strip().lower() for h in rows[0]]
    missing = [c for c in columns if c not in header]
    if missing:
        raise error(f"{source}: line 1: the header has no column {', '.join(missing)} "
                    f"(expected {','.join(columns)})")
    col = {c: header.index(c) for c in columns}
    return [(n, {c: (row[i].strip() if i < len(row) else "") for c, i in col.items()})
            for n, row in enumerate(rows[1:], start=2)]
