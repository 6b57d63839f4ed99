"""What `rubberscan form --match ID --dir DIR` prints on each match's form (ocr/matchform.py):
the QR code's text, a heading, and the two pairs' names in the N/S and E/W fields (the draw's
first pair at N/S)."""

from __future__ import annotations

from batch.ledger import Ledger
from competition import store
from competition.ids import qr_payload
from ocr.matchform import MatchHeader


class FormsError(LookupError):
    """No competition, or a match not in the draw."""


def match_headers(ledger: Ledger, match_ids: list[str], round_no: int | None = None) -> list[MatchHeader]:
    info = store.info(ledger)
    if info is None:
        raise FormsError(f"{ledger.path.parent}: no competition here (rubberscan competition DIR "
                         "--pairs PAIRS.csv)")
    roster, draw = store.load_roster(ledger), store.load_draw(ledger)
    playable = [m for m in draw if not m.bye]
    by_id = {m.match: m for m in playable}
    if any(mid.lower() == "all" for mid in match_ids):
        chosen = list(playable)
    else:
        unknown = [mid for mid in match_ids if mid not in by_id]
        if unknown:
            byes = [mid for mid in unknown if any(m.match == mid for m in draw)]
            raise FormsError(f"no match {', '.join(unknown)} to play in the draw"
                             + (f" ({', '.join(byes)}: a bye)" if byes else ""))
        chosen = [by_id[mid] for mid in match_ids]
    if round_no is not None:
        chosen += [m for m in playable if m.round == round_no and m not in chosen]
    if not chosen:
        raise FormsError("no match chosen: give --match ID (or 'all') or --round N")
    out = []
    for m in chosen:
        a, b = roster.names(m.pair_a), roster.names(m.pair_b)
        by = f" - to be played by {m.deadline}" if m.deadline else ""
        out.append(MatchHeader(
            payload=qr_payload(info["code"], m.match),
            heading=f"{info.get('name', 'Competition')} - round {m.round}, match {m.match}",
            detail=f"{a} ({m.pair_a}) v {b} ({m.pair_b}){by}",
            names_ns=a, names_ew=b))
    return out
