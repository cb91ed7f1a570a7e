"""A dealer's requests that wait for a pit boss: void a round, correct a misscan (DESIGN "The
round is an event log": voided only with a pit boss's approval; "Shoes": a pit boss corrects a
misscan). The dealer asks from the console with a reason; the pit boss approves (the void or the
correction is done then, as the pit boss's, in the same transaction) or rejects with a reason.

Each request waits as a four-eyes approval (``casino.four_eyes``: kind ``round_void`` or
``round_correction``, its subject the round, so one of each kind waits per round at a time), and
the rule of who may decide is that capability's: the kind's permission (``void_round``), never
the requester (``four_eyes_required``), decided once (``approval_decided``). The request and the
pit boss's answer (``RoundRequestDecision``, which the consoles and the pit read) are insert-only
rows."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from casino.actors import Actor
from casino.errors import game, reason_required
from casino.four_eyes import approval_audit_fields, approval_decide, approval_request
from games.cards import Card
from tables.errors import (
    InvalidRequestError,
    NoMisscanError,
    RoundNotOpenError,
    StaffOnlyError,
    TableError,
    TableReasonRequiredError,
)
from tables.locking import lock_round
from tables.models import (
    OPEN_ROUND_STATUSES,
    Round,
    RoundRequest,
    RoundRequestDecision,
)
from tables.services.cards import card_correct
from tables.services.common import require_dealer_or_reader
from tables.services.rounds import round_void

# The four-eyes kind of each request (casino/controls.toml).
APPROVAL_KINDS = {RoundRequest.Kind.VOID: "round_void", RoundRequest.Kind.CORRECTION: "round_correction"}
ROUND_SUBJECT = "tables.round"


def _reason(reason: str) -> str:
    return reason_required(reason, "a reason is required", error=TableReasonRequiredError)


def round_request_create(
    *, round_id: int, actor: Actor, kind: str, reason: str, card: str | None = None
) -> RoundRequest:
    """The table's dealer asks a pit boss to void the round (``kind="void"``) or to correct its
    misscan with ``card`` (``kind="correction"``; None: no card left the shoe). Needs a staff
    dealer of the table (``require_dealer_or_reader``) and a reason. Takes the round's lock.
    The request waits as a pending approval (``approval_request``) that the request links to.
    Refuses ``round_not_open``, ``no_misscan`` (a correction with nothing to correct),
    ``approval_pending`` (one of this kind waits already), ``reason_required``, the card's
    parse error (``invalid_card``), with nothing written. Audited ``round.request_made``."""
    if kind not in RoundRequest.Kind.values:
        raise InvalidRequestError(f"unknown request {kind!r}")
    reason = _reason(reason)
    code = game(lambda: Card.parse(card).code) if card else ""
    with transaction.atomic():
        round_ = lock_round(round_id)
        require_dealer_or_reader(actor, round_.table)
        if actor.user is None:
            raise StaffOnlyError("a dealer signed in on the console makes requests")
        if round_.status not in OPEN_ROUND_STATUSES:
            raise RoundNotOpenError(f"the round is {round_.status}")
        misscan = None
        if kind == RoundRequest.Kind.CORRECTION:
            misscan = round_.awaiting_correction
            if misscan is None:
                raise NoMisscanError("no misscan to correct")
        now = timezone.now()
        approval = approval_request(
            actor=actor,
            casino=round_.table.casino,
            kind=APPROVAL_KINDS[RoundRequest.Kind(kind)],
            subject_type=ROUND_SUBJECT,
            subject_id=round_.pk,
            summary=_summary(round_, kind, code),
            place=round_.table.name,
            before={"misscan": misscan} if misscan is not None else None,
            after={"card": code or None} if kind == RoundRequest.Kind.CORRECTION else None,
            reason=reason,
            at=now,
        )
        request = RoundRequest.objects.create(
            round=round_,
            kind=kind,
            card=code,
            misscan=misscan,
            reason=reason,
            requested_by=actor.user,
            requested_at=now,
            approval=approval,
        )
        actor.audit(
            action="round.request_made",
            object_type="tables.round",
            object_id=round_.pk,
            after={
                "request_id": request.pk,
                "kind": kind,
                "card": code or None,
                "reason": reason,
                "approval_id": approval.pk,
            },
        )
    return request


def _summary(round_: Round, kind: str, card: str) -> str:
    """What waits, as the approvals name it (stored, so in the one language of stored records)."""
    where = f"round {round_.number} at {round_.table.name}"
    if kind == RoundRequest.Kind.VOID:
        return f"Void {where}"
    return f"Correct the misscan of {where} to {card or 'no card (none left the shoe)'}"


def round_request_approve(*, request_id: int, actor: Actor) -> RoundRequest:
    """A pit boss approves a dealer's request: the round is voided (``round_void``) or its misscan
    corrected with the requested card (``card_correct``), by the pit boss, in this transaction.
    Who may decide is the four-eyes capability's (``approval_decide``): ``permission_denied``
    without ``casino.void_round``, ``four_eyes_required`` for the requester, ``approval_decided``
    once decided. Takes the round's lock, then the approval's. Refuses too whatever the void or
    correction refuses (``round_not_open``, ``no_misscan``, the engine's code for the card):
    nothing is then written, and the request stays pending (reject it)."""
    return _decide(request_id=request_id, actor=actor, approve=True, reason="")


def round_request_reject(*, request_id: int, actor: Actor, reason: str) -> RoundRequest:
    """A pit boss rejects a dealer's request with a reason; the round goes on as it was. The same
    rights, locks and refusals as approving (``reason_required`` too). Audited."""
    return _decide(request_id=request_id, actor=actor, approve=False, reason=_reason(reason))


def _decide(*, request_id: int, actor: Actor, approve: bool, reason: str) -> RoundRequest:
    round_id = RoundRequest.objects.filter(pk=request_id).values_list("round_id", flat=True).first()
    if round_id is None:
        raise TableError(f"no request {request_id}", code="not_found")
    with transaction.atomic():
        lock_round(round_id)  # requests of a round are made and decided under its lock
        request = RoundRequest.objects.select_related("requested_by").get(pk=request_id)
        if request.approval_id is None:  # none since migration 0010 made them
            raise TableError(f"request {request_id} has no approval", code="not_found")
        approval = approval_decide(
            approval_id=request.approval_id, actor=actor, approve=approve, reason=reason
        )
        # approval_decide: decided now by a staff user
        assert actor.user is not None and approval.decided_at is not None
        RoundRequestDecision.objects.create(
            request=request,
            status=approval.status,
            decided_by=actor.user,
            decided_at=approval.decided_at,
            reason=approval.decision_reason,
        )
        note = f"request {request.pk} of {request.requested_by.get_username()}: {request.reason}"
        if approve and request.kind == RoundRequest.Kind.VOID:
            round_void(round_id=round_id, actor=actor, reason=note)
        elif approve:
            card_correct(round_id=round_id, actor=actor, card=request.card or None, reason=note)
        actor.audit(
            action="round.request_approved" if approve else "round.request_rejected",
            object_type="tables.round",
            object_id=round_id,
            before={"request_id": request.pk, "kind": request.kind, "status": "pending"},
            after=approval_audit_fields(approval),
        )
    return request


def round_requests_pending(*, casino_id: int) -> list[RoundRequest]:
    """The requests waiting for a pit boss in the casino, oldest first, with round and table."""
    return list(
        RoundRequest.objects.filter(round__table__casino_id=casino_id, decision__isnull=True)
        .select_related("round__table", "requested_by")
        .order_by("pk")
    )
