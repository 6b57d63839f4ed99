"""Reconciliation: a sheet's candidate readings and the rules in, a checked sheet out.

    reconcile(reading, rules=None, settings=ReconcileSettings()) -> ReconciledSheet

The steps, one module each, in the order run.py runs them: how far to trust the reader's lists
(trust.py), the cell model (cells.py), the rule check (check.py), the joint decoder of the
numbers (decode.py) and of the dealer column (dealer.py), the verdicts -- flags (flags.py), review
items (review.py) and their sentences (messages.py) --, the second look before a numbers flag
(look.py, given the page's look by ocr.pipeline), the request for a better scan (rescan.py)
and each deal's explanations (explain.py).  Every tuning value is in settings.py.  Pure: no I/O.
"""

from scoring.reconcile.run import reconcile
from scoring.reconcile.settings import ReconcileSettings

__all__ = ["ReconcileSettings", "reconcile"]
