"""Settlement of a played round, and the approval of large payouts (rules/blackjack.md 7, 8).

``round_settle`` stores the engine's payout lines per bet (rule and exact multiplier) and posts
the whole round to the ledger in one bulk ``wallet.services.holds_settle``: the number of SQL
statements does not grow with the number of bets (see ``bench/settle.py``), but for two per
payout that waits. A payout line whose winnings (``net_minor``: never the stake returned with
them, :func:`payout_waits`) exceed the table's ``payout_approval_threshold_minor`` waits on the
table's payouts-pending account, as a four-eyes approval of kind ``payout``
(``casino.four_eyes``, the round's dealer excluded), until a pit boss approves it or rejects it
with a reason (:func:`payouts_decide`: a round's lines in one command). The round's audit record
carries the hash of its events and payout lines (``tables/round_hash.py``); lines are never
updated: a decision is a ``PayoutDecision`` row beside its approval.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from django.db import transaction
from django.db.models import Case, F, PositiveIntegerField, Value, When
from django.utils import timezone

from casino.actors import Actor
from casino.audit import audit_batch
from casino.errors import reason_required
from casino.event_log import EventDraft
from casino.four_eyes import approval_decide, approval_request
from games.blackjack import settlement
from games.blackjack.jsonable import fraction_text
from games.blackjack.settlement import PayoutLine as EnginePayoutLine
from tables.errors import (
    NoSuchDecisionError,
    RoundNotPlayedError,
    TableError,
    TableHoldMismatchError,
    TablePayoutNotPendingError,
)
from tables.locking import payout_line_lock
from tables.models import (
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
from tables.payout_approvals import PAYOUT_SUBJECT, payout_approvals
from tables.round_hash import SETTLED_ACTION, round_seal
from tables.services.commands import AppliedDefault, round_command, round_state, shoe_consume
from tables.services.common import events_write, require_dealer_or_reader
from wallet.services import SettlementLine, SettlementReference, holds_settle, pending_payouts_decide

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
            raise RoundNotPlayedError(f"the round is {round_.status}, not played to the end")
        with audit_batch():  # the wallet's record and the round's: one append
            state = round_state(round_)
            lines = settlement(state)
            bets = {str(bet.pk): bet for bet in Bet.objects.filter(round=round_)}
            rows = PayoutLine.objects.bulk_create(_payout_rows(round_, lines, bets))
            approvals = _held_payouts_request(round_, rows, bets, actor)
            wallet_lines = _wallet_lines(round_, lines, rows, bets, approvals)
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
                holds_settle(
                    casino=round_.table.casino,
                    table=round_.table,
                    reference=SettlementReference("round", round_.pk),
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


def payout_waits(*, net_minor: int, threshold_minor: int) -> bool:
    """Whether a payout line waits for a pit boss: its winnings (the net win, never the stake
    returned with them) exceed the table's approval threshold. A push, a returned stake and a
    lost bet win nothing, so they never wait."""
    return net_minor > max(threshold_minor, 0)


def _payout_rows(round_: Round, lines: Sequence[EnginePayoutLine], bets: dict[str, Bet]) -> list[PayoutLine]:
    """The payout line rows of the engine's lines (rule and exact multiplier); a line whose
    winnings (``payout_waits``) exceed the table's approval threshold waits for a pit boss."""
    threshold = round_.config.payout_approval_threshold_minor
    rows: list[PayoutLine] = []
    for line in lines:
        waits = payout_waits(net_minor=line.net_minor, threshold_minor=threshold)
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


def _held_payouts_request(
    round_: Round, rows: Sequence[PayoutLine], bets: dict[str, Bet], actor: Actor
) -> dict[int, int]:
    """A four-eyes approval of kind ``payout`` for each line that waits, asked by whoever settles
    the round, which the round's dealer may not decide either: approval id by line id."""
    table = round_.table
    approvals: dict[int, int] = {}
    for row in rows:
        if not row.needs_approval:
            continue
        bet = bets[str(row.bet_id)]
        hand = f" hand {row.hand + 1}" if row.hand is not None else ""
        approval = approval_request(
            actor=actor,
            casino=table.casino,
            kind="payout",
            subject_type=PAYOUT_SUBJECT,
            subject_id=row.pk,
            summary=f"{table.name} round {round_.number}, box {bet.box_number}{hand}: {row.rule}",
            place=table.name,
            amount_minor=row.paid_minor,
            after={
                "round_id": round_.pk,
                "box": bet.box_number,
                "hand": row.hand,
                "net_minor": row.net_minor,
                "paid_minor": row.paid_minor,
                "threshold_minor": round_.config.payout_approval_threshold_minor,
            },
            excluded={"round_dealer": round_.dealer_id} if round_.dealer_id else None,
        )
        approvals[row.pk] = approval.pk
    return approvals


def _wallet_lines(
    round_: Round,
    lines: Sequence[EnginePayoutLine],
    rows: Sequence[PayoutLine],
    bets: dict[str, Bet],
    approvals: dict[int, int],
) -> list[SettlementLine]:
    """What the wallet posts for the round: each payout (and rounding remainder) to the bettor's
    account, a held one on its approval, and each hold closed with the part of it the bet staked
    (the rest is freed). Raises ``hold_mismatch`` if a bet staked more than it held (a bug:
    nothing is posted then)."""
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
                    approval_id=approvals.get(row.pk),
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
            raise TableHoldMismatchError(f"bet {bet_id} staked more than it held")
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


def payouts_decide(
    *,
    round_id: int,
    actor: Actor,
    approve: Sequence[int] = (),
    reject: Sequence[int] = (),
    reason: str = "",
) -> list[PayoutLine]:
    """A pit boss decides held payout lines of one round in one command: those of ``approve``
    are released to the players' wallets, those of ``reject`` go back to the tray with ``reason``.
    All or nothing, in one transaction.

    Who may decide is the four-eyes capability's rule (``casino.four_eyes.approval_decide``:
    ``approve_payout``, neither the one who settled the round nor its dealer). Each decision is
    also a ``PayoutDecision`` row (lines are never updated); the money moves in the wallet
    (``pending_payouts_decide``, which writes the command's one audit record, on the round).

    Locks the lines (their advisory locks, id order), then their approvals (id order), then the
    pending payouts and the accounts, then the audit chain. Raises ``no_such_decision`` (no line,
    or a line both approved and rejected), ``reason_required`` (a rejection without a reason),
    ``not_found`` (a line not of this round), ``payout_not_pending`` (a line paid at once),
    ``approval_decided``, ``four_eyes_required``, ``permission_denied``; nothing is written then.
    Returns the lines decided, in id order."""
    approved, rejected = set(approve), set(reject)
    if not approved | rejected or approved & rejected:
        raise NoSuchDecisionError("approve or reject each payout line once")
    cleaned = reason_required(reason, "A rejection needs a reason.") if rejected else reason.strip()
    line_ids = sorted(approved | rejected)
    with transaction.atomic():
        for line_id in line_ids:
            payout_line_lock(line_id)
        lines = list(PayoutLine.objects.filter(pk__in=line_ids, round_id=round_id).order_by("pk"))
        missing = sorted(set(line_ids) - {line.pk for line in lines})
        if missing:
            raise TableError(f"no payout line {missing[0]} in round {round_id}", code="not_found")
        approvals = payout_approvals(line_ids)
        for line in lines:
            if not line.needs_approval or line.pk not in approvals:
                raise TablePayoutNotPendingError(f"payout line {line.pk} was paid at once", line_id=line.pk)
        now = timezone.now()
        decided = [
            approval_decide(
                approval_id=approval.pk,
                actor=actor,
                approve=int(approval.subject_id) in approved,
                reason=cleaned if int(approval.subject_id) in rejected else "",
                at=now,
            )
            for approval in sorted(approvals.values(), key=lambda approval: approval.pk)
        ]
        PayoutDecision.objects.bulk_create(
            [
                PayoutDecision(
                    line_id=int(approval.subject_id),
                    status=approval.status,
                    decided_by=approval.decided_by,
                    decided_at=now,
                    reason=approval.decision_reason,
                )
                for approval in decided
            ]
        )
        pending_payouts_decide(approvals=decided, actor=actor, object_type="tables.round", object_id=round_id)
    return list(PayoutLine.objects.filter(pk__in=line_ids).select_related("decision").order_by("pk"))


def _line_round_id(payout_line_id: int) -> int:
    round_id = PayoutLine.objects.filter(pk=payout_line_id).values_list("round_id", flat=True).first()
    if round_id is None:
        raise TableError(f"no payout line {payout_line_id}", code="not_found")
    return round_id


def payout_approve(*, payout_line_id: int, actor: Actor) -> PayoutLine:
    """A pit boss releases one held payout to the player's wallet: :func:`payouts_decide` of
    that line alone."""
    round_id = _line_round_id(payout_line_id)
    return payouts_decide(round_id=round_id, actor=actor, approve=[payout_line_id])[0]


def payout_reject(*, payout_line_id: int, actor: Actor, reason: str) -> PayoutLine:
    """A pit boss rejects one held payout with a reason (the money goes back to the tray):
    :func:`payouts_decide` of that line alone."""
    round_id = _line_round_id(payout_line_id)
    return payouts_decide(round_id=round_id, actor=actor, reject=[payout_line_id], reason=reason)[0]


__all__ = ["payout_approve", "payout_reject", "payout_waits", "payouts_decide", "round_settle"]
