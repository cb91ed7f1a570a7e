"""Settlement of a played round, and the approval of large payouts (rules/blackjack.md 7, 8).

``round_settle`` stores the engine's payout lines per bet (rule and exact multiplier) and posts
the whole round to the ledger in one bulk ``wallet.round_settle``: the number of SQL
statements does not grow with the number of bets (see ``bench/settle.py``). A payout line whose
``paid_minor`` is above the table's ``payout_approval_threshold_minor`` waits on the table's
payouts-pending account until a pit boss who is not the round's dealer approves it (or rejects it
with a reason). The round's audit record carries the hash of its events and payout lines
(``tables/round_hash.py``); lines are never updated: a decision is a ``PayoutDecision`` row.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from fractions import Fraction

from django.db import transaction
from django.db.models import Case, F, PositiveIntegerField, Value, When
from django.utils import timezone

from casino.actors import Actor, require_staff
from casino.audit import audit_batch
from tables.errors import ApprovalByDealerRefusedError, RoundNotOpenError, TableError
from tables.games.blackjack import settlement
from tables.games.blackjack.jsonable import fraction_text
from tables.games.blackjack.settlement import PayoutLine as EnginePayoutLine
from tables.locking import payout_line_lock
from tables.models import (
    ApprovalStatus,
    Bet,
    BetHold,
    BetKind,
    BetStatus,
    Box,
    PayoutDecision,
    PayoutLine,
    Round,
    RoundStatus,
    Seat,
)
from tables.round_hash import SETTLED_ACTION, round_seal
from tables.services.commands import AppliedDefault, round_command, round_state, shoe_consume
from tables.services.common import EventDraft, events_write, require_dealer_or_reader
from wallet.models import PendingPayout
from wallet.services import SettlementLine, payout_release
from wallet.services import payout_reject as wallet_payout_reject
from wallet.services import round_settle as wallet_round_settle

PAYOUT_REFERENCE = "payout_line:{}"


def round_settle(*, round_id: int, actor: Actor) -> Round:
    """Settle a played round: payout lines stored, the ledger posted in bulk (stakes taken from
    the holds, wins paid from the tray, payouts above the threshold parked for approval, rounding
    remainders to the house rounding account), win streaks updated, the shoe's cards counted.

    Needs the dealer or the system. Locks the round FOR UPDATE, then (in the wallet) the holds
    and the accounts in id order, then the audit chain. Raises ``round_not_played`` (the engine
    has not reached the end), ``insufficient_funds`` (the tray cannot pay: fill the table).
    A constant number of SQL statements whatever the number of bets. The ``round.settled`` audit
    record carries the round's hash (``round_seal``: one read of the round's events), which
    ``round_verify`` checks.
    """

    def body(round_: Round, applied: list[AppliedDefault]) -> Round:
        require_dealer_or_reader(actor, round_.table)
        if round_.status != RoundStatus.SETTLING:
            raise TableError(f"the round is {round_.status}, not played to the end", code="round_not_played")
        with audit_batch():  # the wallet's record and the round's: one append
            state = round_state(round_)
            lines = settlement(state)
            bets = {str(bet.pk): bet for bet in Bet.objects.filter(round=round_)}
            rows = PayoutLine.objects.bulk_create(_payout_rows(round_, lines, bets))
            wallet_lines = _wallet_lines(round_, lines, rows, bets)
            Bet.objects.filter(round=round_, status=BetStatus.PLACED).update(status=BetStatus.SETTLED)
            _streaks_update(round_, lines, bets)
            shoe_consume(round_.shoe, state)
            round_.status = RoundStatus.SETTLED
            totals = {
                "stake_minor": sum(line.stake_minor for line in lines),
                "paid_minor": sum(line.paid_minor for line in lines),
                "lines": len(lines),
                "awaiting_approval": sum(1 for row in rows if row.needs_approval),
            }
            events_write(
                round_,
                [EventDraft("settled", {"lines": [line.to_dict() for line in lines], "totals": totals})],
                actor,
                None,
            )
            Round.objects.filter(pk=round_.pk).update(
                status=RoundStatus.SETTLED,
                settled_at=timezone.now(),
                version=round_.version,
                decision_deadline_at=None,
            )
            if wallet_lines:
                wallet_round_settle(
                    casino=round_.table.casino,
                    table=round_.table,
                    reference=str(round_.pk),
                    lines=wallet_lines,
                    actor=actor,
                    savepoint=False,  # a refusal rolls back the whole settlement
                )
            # Last: the record carries the hash of every event (the settled one included) and line.
            actor.audit(
                action=SETTLED_ACTION,
                object_type="tables.round",
                object_id=round_.pk,
                before={"status": RoundStatus.SETTLING},
                after={
                    "table": round_.table.name,
                    "number": round_.number,
                    **totals,
                    **round_seal(round_, rows),
                },
            )
        return round_

    return round_command(round_id, body, actor)


def _payout_rows(round_: Round, lines: Sequence[EnginePayoutLine], bets: dict[str, Bet]) -> list[PayoutLine]:
    """The payout line rows of the engine's lines (rule and exact multiplier); a line paying more
    than the table's approval threshold waits for a pit boss."""
    threshold = round_.config.payout_approval_threshold_minor
    rows: list[PayoutLine] = []
    for line in lines:
        waits = line.outcome != "refund" and line.paid_minor > threshold
        rows.append(
            PayoutLine(
                round=round_,
                bet=bets[line.bet_id],
                hand=line.hand,
                outcome=line.outcome,
                rule=line.rule[:120],
                multiplier_numerator=line.multiplier.numerator,
                multiplier_denominator=line.multiplier.denominator,
                stake_minor=line.stake_minor,
                net_minor=line.net_minor,
                paid_minor=line.paid_minor,
                rounding_remainder=fraction_text(line.rounding_remainder_minor),
                needs_approval=waits,
            )
        )
    return rows


def _wallet_lines(
    round_: Round, lines: Sequence[EnginePayoutLine], rows: Sequence[PayoutLine], bets: dict[str, Bet]
) -> list[SettlementLine]:
    """What the wallet posts for the round: each payout (and rounding remainder) to the bettor's
    account, and each hold closed with the part of it the bet staked (the rest is freed). Raises
    ``hold_mismatch`` if a bet staked more than it held (a bug: nothing is posted then)."""
    holds: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
    for bet_pk, hold_id, amount, account_id in (
        BetHold.objects.filter(bet__round=round_, bet__status=BetStatus.PLACED)
        .order_by("pk")
        .values_list("bet_id", "hold_id", "amount_minor", "hold__account_id")
    ):
        holds[str(bet_pk)].append((hold_id, amount, account_id))
    staked: dict[str, int] = defaultdict(int)
    wallet_lines: list[SettlementLine] = []
    for line, row in zip(lines, rows, strict=True):
        if bets[line.bet_id].status != BetStatus.PLACED:
            continue  # returned when betting closed (owner not playing)
        staked[line.bet_id] += line.stake_minor
        account_id = holds[line.bet_id][0][2]
        rounding = math.floor(line.rounding_remainder_minor)
        if line.paid_minor:
            wallet_lines.append(
                SettlementLine(
                    account_id=account_id,
                    stake_minor=0,
                    payout_minor=line.paid_minor,
                    needs_approval=row.needs_approval,
                    rounding_minor=rounding,
                    bet_reference=PAYOUT_REFERENCE.format(row.pk),
                )
            )
        elif rounding >= 1:
            wallet_lines.append(
                SettlementLine(account_id=account_id, stake_minor=0, payout_minor=0, rounding_minor=rounding)
            )
    for bet_id, bet_holds in holds.items():
        remaining = staked.get(bet_id, 0)
        for hold_id, amount, account_id in bet_holds:
            take = min(amount, remaining)
            remaining -= take
            wallet_lines.append(
                SettlementLine(
                    account_id=account_id,
                    stake_minor=take,
                    payout_minor=0,
                    hold_id=hold_id,
                    bet_reference=f"bet:{bet_id}",
                )
            )
        if remaining:
            raise TableError(f"bet {bet_id} staked more than it held", code="hold_mismatch")
    return wallet_lines


def _streaks_update(round_: Round, lines: Sequence[EnginePayoutLine], bets: dict[str, Bet]) -> None:
    """One UPDATE: a seat whose player won on the box (net > 0) adds one, a loss resets to 0,
    a push keeps the streak (rules/blackjack.md 2.5)."""
    net: dict[tuple[int, int], int] = defaultdict(int)
    for line in lines:
        bet = bets[line.bet_id]
        if bet.kind == BetKind.INSURANCE or line.outcome == "refund":
            continue
        net[(line.box, bet.player_id)] += line.net_minor
    if not net:
        return
    # The box ids read first: a subquery per box in the CASE instead saves this statement but
    # costs Django more time to build (4 boxes: 3.3 ms against 2.5 ms for read and update).
    box_ids = dict(Box.objects.filter(table_id=round_.table_id).order_by().values_list("number", "pk"))
    whens, boxes = [], set()
    for (box_number, player_id), amount in net.items():
        if amount == 0 or box_number not in box_ids:
            continue
        result = F("win_streak") + 1 if amount > 0 else Value(0, output_field=PositiveIntegerField())
        whens.append(When(box_id=box_ids[box_number], player_id=player_id, then=result))
        boxes.add(box_ids[box_number])
    if whens:  # only the seats of the boxes that won or lost are written
        Seat.objects.filter(box_id__in=sorted(boxes)).update(
            win_streak=Case(*whens, default=F("win_streak"), output_field=PositiveIntegerField())
        )


def _decide(*, payout_line_id: int, actor: Actor, release: bool, reason: str = "") -> PayoutLine:
    require_staff(actor, "approve_payout")
    with transaction.atomic():
        line = payout_line_lock(payout_line_id)
        if line is None:
            raise TableError(f"no payout line {payout_line_id}", code="not_found")
        if line.approval_status != ApprovalStatus.PENDING:
            raise TableError(
                f"payout line {payout_line_id} is {line.approval_status}", code="payout_not_pending"
            )
        round_ = Round.objects.get(pk=line.round_id)
        if round_.dealer_id is not None and actor.user is not None and round_.dealer_id == actor.user.pk:
            raise ApprovalByDealerRefusedError("the dealer of the round cannot approve its payouts")
        payout = PendingPayout.objects.get(
            bet_reference=PAYOUT_REFERENCE.format(line.pk), reference_id=str(round_.pk)
        )
        # The line stays as settlement wrote it: the decision is a row of its own.
        PayoutDecision.objects.create(
            line=line,
            status=ApprovalStatus.APPROVED if release else ApprovalStatus.REJECTED,
            decided_by=actor.user,
            decided_at=timezone.now(),
            reason=reason,
        )
        if release:
            payout_release(payout=payout, actor=actor)
        else:
            wallet_payout_reject(payout=payout, actor=actor, reason=reason)
    return PayoutLine.objects.get(pk=payout_line_id)


def payout_approve(*, payout_line_id: int, actor: Actor) -> PayoutLine:
    """A pit boss releases a payout held above the threshold to the player's wallet.
    Needs ``casino.approve_payout``; the round's dealer is refused (``approval_by_dealer_refused``).
    Locks the payout line, then (wallet) the pending payout and the accounts. The decision is a
    new ``PayoutDecision`` row (the line itself is never updated; one decision per line). Raises
    ``payout_not_pending``, ``permission_denied``. Audited by the wallet (``wallet.payout_released``)."""
    return _decide(payout_line_id=payout_line_id, actor=actor, release=True)


def payout_reject(*, payout_line_id: int, actor: Actor, reason: str) -> PayoutLine:
    """A pit boss rejects a held payout with a reason (the money goes back to the tray).
    Same rules as :func:`payout_approve`; raises ``reason_required`` without a reason."""
    reason = (reason or "").strip()
    if not reason:
        raise TableError("a reason is required", code="reason_required")
    return _decide(payout_line_id=payout_line_id, actor=actor, release=False, reason=reason[:300])


__all__ = ["payout_approve", "payout_reject", "round_settle"]
_ = (RoundNotOpenError, Fraction)
