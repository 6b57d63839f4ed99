"""Setting a competition up in a batch folder, and the next round's draw.

`rubberscan competition DIR --pairs PAIRS.csv [--draw DRAW.csv]` stores the pairs and the draw
(running it again updates both: the rounds in DRAW.csv are replaced, the others kept);
`rubberscan draw DIR --round N` draws the pairs still in.
"""

from __future__ import annotations

from batch.ledger import Ledger
from competition import store
from competition.draw import DrawError, Match, make_draw
from competition.ids import new_code
from competition.roster import Roster
from competition.run import State
from competition.settings import DEFAULT, DrawSettings


def set_up(ledger: Ledger, roster: Roster, draw: list[Match] | None, name: str | None) -> dict:
    """Store the pairs (and the draw's rounds given); returns the competition's info.  Raises
    DrawError when the draw kept would name a pair no longer in the roster."""
    kept = [m for m in store.load_draw(ledger)
            if draw is None or m.round not in {d.round for d in draw}]
    gone = sorted({p for m in kept for p in m.pairs if p not in roster})
    if gone:
        raise DrawError(f"the draw already made names pair(s) {', '.join(gone)}, not in the new "
                        "pairs file: give a draw without them (--draw) or keep them in the pairs")
    if draw is not None:
        clash = [f"{m.match} (round {m.round})" for m in kept if m.match in {d.match for d in draw}]
        if clash:
            raise DrawError(f"match id(s) {', '.join(clash)} already used in another round")
    info = store.info(ledger) or {"code": new_code()}
    if name:
        info["name"] = name
    info.setdefault("name", ledger.path.parent.resolve().name or "Competition")
    store.set_info(ledger, info)
    store.save_roster(ledger, roster)
    if draw is not None:
        store.save_draw(ledger, draw)
    return info


def pairs_for_round(state: State, round_no: int) -> tuple[list, frozenset[str]]:
    """(the pairs still in for round ``round_no``, those that had a bye before); raises DrawError
    when the round before has a match without a result that stands."""
    earlier = [m for m in state.draw if m.round < round_no]
    if round_no == 1 or not earlier:
        return list(state.roster), frozenset()
    prev = max(m.round for m in earlier)
    if prev != round_no - 1:
        raise DrawError(f"round {round_no}: the draw has no round {round_no - 1} yet")
    by_match = {r.match: r for r in state.results}
    open_ = [f"{m.match} ({by_match[m.match].status})" for m in earlier if m.round == prev
             and (by_match[m.match].status not in ("verified", "flags") or not by_match[m.match].winner)]
    if open_:
        raise DrawError(f"round {prev} is not finished: {', '.join(open_)}; settle these first "
                        "(or edit the draw by hand and import it with --draw)")
    winners = [by_match[m.match].winner for m in earlier if m.round == prev]
    had_bye = frozenset(m.pair_a for m in earlier if m.bye)
    return [state.roster.get(p) for p in winners if state.roster.get(p)], had_bye


def next_draw(ledger: Ledger, state: State, round_no: int, seed: int | None,
              deadline: str | None, force: bool = False,
              settings: DrawSettings = DEFAULT.draw) -> list[Match]:
    """Draw round ``round_no`` and store it (replacing that round's draw, when no sheet is matched
    to it yet, or ``force``)."""
    have = [m for m in state.draw if m.round == round_no]
    if have and not force:
        busy = [r.match for r in state.results if r.round == round_no and r.sheet_ids]
        if busy:
            raise DrawError(f"round {round_no} is drawn and has sheets ({', '.join(busy)}); "
                            "--force draws it again all the same")
    later = sorted({m.round for m in state.draw if m.round > round_no})
    if later:
        raise DrawError(f"round {round_no}: round {later[0]} is drawn already")
    pairs, had_bye = pairs_for_round(state, round_no)
    if len(pairs) <= 2 and round_no > 1:
        raise DrawError(f"round {round_no}: {len(pairs)} pairs left: the top two are known, "
                        "the knock-out is over")
    if seed is None:
        seed = int(state.info.get("seed", 0)) or sum(ord(c) * 31 ** i for i, c in
                                                     enumerate(state.info.get("code", "")))
    matches = make_draw(pairs, round_no, seed, deadline, had_bye, settings)
    store.save_draw(ledger, matches, {round_no})
    return matches
