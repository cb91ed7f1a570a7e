"""Held payouts in the wallet's own tests: the four-eyes approval a parked payout waits on, and
its decision with its effect (``tables.services.settlement`` does both for a round's lines)."""

from __future__ import annotations

import itertools

from django.db import transaction

from casino.actors import Actor
from casino.four_eyes import approval_decide, approval_request
from casino.models import Approval, Casino
from wallet.models import PendingPayout, Transfer
from wallet.services import pending_payouts_decide

_subjects = itertools.count(1)


def payout_approval(casino: Casino) -> int:
    """A pending payout approval asked by the system (the settlement of a test round): its id,
    for a ``SettlementLine`` that waits."""
    return approval_request(
        actor=Actor.automatic("test settlement"),
        casino=casino,
        kind="payout",
        subject_type="test.payout",
        subject_id=next(_subjects),
        summary="a test payout",
    ).pk


def payout_decided(
    payout: PendingPayout, *, actor: Actor, approve: bool = True, reason: str = ""
) -> Approval:
    assert payout.approval_id is not None
    return approval_decide(approval_id=payout.approval_id, actor=actor, approve=approve, reason=reason)


def pending_payout_release(*, payout: PendingPayout, actor: Actor) -> Transfer:
    """A pit boss approves the payout and it reaches the player: one command, one transaction."""
    with transaction.atomic():
        decided = payout_decided(payout, actor=actor)
        (transfer,) = pending_payouts_decide(approvals=[decided], actor=actor)
    return transfer


def pending_payout_reject(*, payout: PendingPayout, actor: Actor, reason: str) -> Transfer:
    """A pit boss rejects the payout and it goes back to the tray: one command, one transaction."""
    with transaction.atomic():
        decided = payout_decided(payout, actor=actor, approve=False, reason=reason)
        (transfer,) = pending_payouts_decide(approvals=[decided], actor=actor)
    return transfer
