"""The review queue's providers: the sheets' own questions first, then the others.  A new kind
of question (the competition's "which match is this sheet?") joins by being listed here."""

from __future__ import annotations

from review.names import UnreadNames
from review.queue import Provider, SheetItems


def default_providers() -> list[Provider]:
    return [SheetItems(), UnreadNames()]
