"""Reconciliation: a sheet's candidate readings and the rules in, a checked sheet out.

:func:`reconcile` is the entry point (scoring/reconcile/run.py); the modules it runs are the
trust put in the reader's lists (trust.py), the rule check (check.py), the joint decoder of the
numbers (decode.py) and of the dealer column (dealer.py), the request for a better scan
(rescan.py) and the explanations of each deal's score (explain.py).  Pure: no I/O.
"""

from scoring.reconcile.run import reconcile

__all__ = ["reconcile"]
