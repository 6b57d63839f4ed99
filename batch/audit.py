"""Re-reconcile a batch's stored readings (e.g. after changing a house rule), no images needed."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from batch import outputs
from batch.decided import decided_result
from batch.ledger import LEDGER_NAME, Ledger, LedgerError, LedgerWriteError
from batch.worker import Reconciler, default_reconciler, house_rules, merge_rules


@dataclass
class AuditResult:
    sheets: int = 0  # sheets re-reconciled
    changes: list[str] = field(default_factory=list)  # one line per change, for people
    errors: list[str] = field(default_factory=list)
    changed_sheets: int = 0


def audit(out_dir: str | Path, unfinished: str | None = None, partscore: int | None = None,
          reconciler: Reconciler | None = None) -> AuditResult:
    """Re-reconcile every stored reading under the given house rules (None = as last used),
    update the ledger, the per-sheet files and the report, and describe what changed."""
    out_dir = Path(out_dir)
    path = out_dir / LEDGER_NAME
    if not path.is_file():
        raise LedgerError(f"{out_dir}: no {LEDGER_NAME} here (is this a batch output folder?)")
    if not (os.access(out_dir, os.W_OK) and os.access(path, os.W_OK)):
        raise LedgerWriteError(f"{out_dir}: read-only; audit rewrites the ledger, the per-sheet files "
                               "and the report there (run it on a copy you may write)")
    reconcile = reconciler or default_reconciler
    result = AuditResult()
    with Ledger(path, lock=True) as ledger:
        rules = merge_rules(ledger.get_setting("rules"), unfinished, partscore)
        ledger.set_setting("rules", rules)
        house = house_rules(rules)
        old = {s.sheet_id: s for s in ledger.sheets() if s.sheet_id}
        for sid, stored in ledger.readings():
            try:
                # a person's decisions (the review app) applied on top, as batch applies them
                new = decided_result(stored, ledger.decisions(sid), house, reconcile)
            except Exception as exc:  # a stored reading the scorer rejects: report, keep going
                result.errors.append(f"{sid}: cannot re-reconcile: {type(exc).__name__}: {exc}")
                continue
            result.sheets += 1
            before = old.get(sid)
            lines = describe_changes(before.result if before else None, new)
            if lines:
                result.changed_sheets += 1
                label = before.source if before else sid
                result.changes.extend(f"{label}: {line}" for line in lines)
            ledger.set_result(sid, new, rules)
            for row in ledger.sheets(sid):
                outputs.write_sheet_files(out_dir, row)
        outputs.write_index(out_dir, ledger)
    return result


def describe_changes(old: dict | None, new: dict) -> list[str]:
    """What differs between two result objects, in words."""
    if old is None:
        return ["result added"]
    lines = []
    if old.get("winners") != new.get("winners"):
        lines.append(f"winners {old.get('winners')} -> {new.get('winners')}")
    ot, nt = old.get("totals") or {}, new.get("totals") or {}
    if ot != nt:
        lines.append(f"totals N/S {ot.get('ns')} E/W {ot.get('ew')} -> N/S {nt.get('ns')} E/W {nt.get('ew')}")
    of = {f.get("message") for f in old.get("flags") or []}
    nf = {f.get("message") for f in new.get("flags") or []}
    lines += [f"flag removed: {m}" for m in sorted(of - nf, key=str)]
    lines += [f"flag added: {m}" for m in sorted(nf - of, key=str)]
    orv, nrv = len(old.get("review") or []), len(new.get("review") or [])
    if orv != nrv:
        lines.append(f"items to review {orv} -> {nrv}")
    if not lines and old.get("rows") != new.get("rows"):
        lines.append("table values changed")
    oe, ne = old.get("explanations") or {}, new.get("explanations") or {}
    deals = sorted({d for d in set(oe) | set(ne) if oe.get(d) != ne.get(d)}, key=lambda d: (len(str(d)), str(d)))
    if deals:
        shown = ", ".join(map(str, deals[:8])) + (f" and {len(deals) - 8} more" if len(deals) > 8 else "")
        lines.append(f"explanations changed for deal{'s' if len(deals) > 1 else ''} {shown}")
    return lines
