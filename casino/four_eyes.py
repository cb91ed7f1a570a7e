"""Four eyes: the one way the back office makes a change or a payment wait for a second person.

Every approval the product has is an :class:`~casino.models.Approval` asked for with
:func:`approval_request` and decided with :func:`approval_decide`, by the service of the thing
that waits (a held payout in ``tables.services.settlement``, a configuration change in
``tables.services.config``, a balance adjustment in ``wallet.services``...). That service keeps
its own effect (the money moved, the version made); the rule of who may decide is here only:

- the decider holds the kind's permission (``permission_denied``);
- the decider is neither the requester nor anyone the requesting service excluded, such as the
  round's dealer for a payout (``four_eyes_required``; the database refuses it too, by a check
  constraint);
- an approval is decided once (``approval_decided``); a rejection says why (``reason_required``).

Which decisions wait, who takes them and which changes of a setting weaken a control is data:
``casino/controls.toml`` (:data:`POLICY`), explained in ``docs/controls.md``.

Neither function writes the audit record: the calling service writes one record for the whole
command, last (the audit chain's lock comes last in the lock order, ``casino.locking``), with
:func:`approval_audit_fields` in it. The approval row is locked after the row it decides (the
round, the table, the payout line, the adjustment, the slip) and before any account.
"""

from __future__ import annotations

import datetime as dt
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from casino.actors import Actor, require_staff
from casino.errors import (
    REASON_MAX_LENGTH,
    ApprovalDecidedError,
    ApprovalNotFoundError,
    ApprovalPendingError,
    FourEyesRequiredError,
    IndependentRoleError,
    ServiceError,
    reason_required,
)
from casino.hints import hint, queue_topic
from casino.locking import row_lock
from casino.models import Approval, Casino
from casino.roles import role_of

POLICY_PATH = Path(__file__).with_name("controls.toml")


@dataclass(frozen=True)
class ApprovalKind:
    """One kind of approval of the policy."""

    name: str
    label: str
    permission: str
    excluded: tuple[str, ...]
    enforced_by: str


@dataclass(frozen=True)
class Weakening:
    """A change of a setting that weakens a control: ``field`` of ``scope`` moved ``when`` (for
    ``changed``, to the value ``to`` when it names one: ``shoe_kind`` changed to ``physical``)."""

    scope: str
    field: str
    when: str
    kind: str
    to: Any = None

    def applies(self, before: Any, after: Any) -> bool:
        if before == after:
            return False
        if self.when == "changed":
            return self.to is None or after == self.to
        if self.when == "switched_off":
            return bool(before) and not after
        if self.when == "switched_on":
            return not before and bool(after)
        if before is None or after is None:
            # A threshold switched off (none) is the weakest value there is.
            return after is None and self.when == "raised"
        if self.when == "raised":
            return bool(after > before)
        if self.when == "lowered":
            return bool(after < before)
        raise ValueError(f"unknown direction {self.when!r} in {POLICY_PATH.name}")


@dataclass(frozen=True)
class Policy:
    kinds: Mapping[str, ApprovalKind]
    weakenings: tuple[Weakening, ...]
    # Roles that never decide, whatever permissions they hold (the auditors' independence).
    never_decide: frozenset[str] = frozenset()


WEAKENING_DIRECTIONS = frozenset({"raised", "lowered", "switched_off", "switched_on", "changed"})


def policy_load(path: Path = POLICY_PATH) -> Policy:
    """The policy file read and checked: every weakening names a known kind and direction."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    kinds = {
        name: ApprovalKind(
            name=name,
            label=entry["label"],
            permission=entry["permission"],
            excluded=tuple(entry.get("excluded", ())),
            enforced_by=entry["enforced_by"],
        )
        for name, entry in data["kinds"].items()
    }
    weakenings = tuple(Weakening(**entry) for entry in data.get("weakens", ()))
    for weakening in weakenings:
        if weakening.kind not in kinds or weakening.when not in WEAKENING_DIRECTIONS:
            raise ValueError(f"{path.name}: {weakening} names an unknown kind or direction")
        if weakening.to is not None and weakening.when != "changed":
            raise ValueError(f"{path.name}: {weakening} names a value to change to, but not as changed")
    never_decide = frozenset(data.get("independence", {}).get("never_decide", ()))
    return Policy(kinds=kinds, weakenings=weakenings, never_decide=never_decide)


POLICY = policy_load()


def weakened_fields(*, scope: str, before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """The fields of a change of ``scope`` (values before and after, by field) that weaken a
    control by the policy: such a change never applies on one person's word."""
    return [
        weakening.field
        for weakening in POLICY.weakenings
        if weakening.scope == scope
        and weakening.field in after
        and weakening.applies(before.get(weakening.field), after[weakening.field])
    ]


def _kind(name: str) -> ApprovalKind:
    try:
        return POLICY.kinds[name]
    except KeyError:
        raise ValueError(f"{name!r} is not a kind of approval in {POLICY_PATH.name}") from None


def approval_request(
    *,
    actor: Actor,
    casino: Casino,
    kind: str,
    subject_type: str,
    subject_id: object,
    summary: str,
    place: str = "",
    amount_minor: int | None = None,
    before: Mapping[str, Any] | None = None,
    after: Mapping[str, Any] | None = None,
    reason: str = "",
    excluded: Mapping[str, int | list[int]] | None = None,
    at: dt.datetime | None = None,
) -> Approval:
    """Record that ``subject`` waits for a second person, asked by ``actor``, and return the
    pending approval. Call it in the requesting service's transaction, under that service's lock
    of the subject. ``excluded`` names who may not decide besides the requester, by the names of
    the kind's policy entry (``{"round_dealer": 12}``). Refuses ``approval_pending`` when the
    subject already waits (nothing written)."""
    entry = _kind(kind)
    unknown = set(excluded or ()) - set(entry.excluded)
    if unknown:
        raise ValueError(f"{kind} excludes {entry.excluded}, not {sorted(unknown)}")
    subject = str(subject_id)
    if Approval.objects.filter(
        kind=kind, subject_type=subject_type, subject_id=subject, status=Approval.Status.PENDING
    ).exists():
        raise ApprovalPendingError("This already waits for a second person.", kind=kind)
    now = at or timezone.now()
    hint(queue_topic(casino.pk))
    return Approval.objects.create(
        casino=casino,
        kind=kind,
        subject_type=subject_type,
        subject_id=subject,
        place=place[:120],
        summary=summary[:300],
        amount_minor=amount_minor,
        before=dict(before) if before is not None else None,
        after=dict(after) if after is not None else None,
        gaming_day=casino.gaming_day(now),
        requested_by=actor.user,
        requested_by_name=actor.name,
        requested_terminal=actor.terminal,
        requested_at=now,
        request_reason=reason.strip()[:REASON_MAX_LENGTH],
        excluded={name: value for name, value in (excluded or {}).items() if value},
    )


def _excluded_ids(approval: Approval) -> set[int]:
    ids: set[int] = set()
    for value in approval.excluded.values():
        ids.update(value if isinstance(value, list) else [value])
    if approval.requested_by_id is not None:
        ids.add(approval.requested_by_id)
    return ids


def approval_check(*, approval: Approval, actor: Actor) -> None:
    """Refuse, as deciding would, when ``actor`` may not decide ``approval``: without the kind's
    permission (``permission_denied``), as its requester or an excluded person
    (``four_eyes_required``), or when it is decided (``approval_decided``). Writes nothing."""
    require_staff(actor, _kind(approval.kind).permission)
    assert actor.user is not None  # require_staff: a staff user
    if actor.role in POLICY.never_decide:
        raise IndependentRoleError("An auditor takes no part in what they audit.", role=actor.role)
    if not approval.is_pending:
        raise ApprovalDecidedError("This is decided already.", status=approval.status)
    if actor.user.pk in _excluded_ids(approval):
        raise FourEyesRequiredError(
            "A second person must decide: whoever asked for it cannot, nor, for a payout, the round's dealer."
        )


def may_decide(*, approval: Approval, user: User | AnonymousUser) -> bool:
    """Whether ``user`` may decide ``approval`` now (for a screen's buttons)."""
    if not user.is_authenticated:
        return False
    try:
        approval_check(approval=approval, actor=Actor.staff(user))
    except ServiceError:
        return False
    return True


def approval_decide(
    *, approval_id: int, actor: Actor, approve: bool, reason: str = "", at: dt.datetime | None = None
) -> Approval:
    """Decide a pending approval: approved, or rejected with a reason. Locks the approval's row
    (after the row it decides, which the calling service locked first) and refuses as
    :func:`approval_check` does, and ``reason_required`` for a rejection without one, with
    nothing written. The caller then makes the effect (or not) and audits the command."""
    cleaned = reason.strip()[:REASON_MAX_LENGTH]
    if not approve:
        cleaned = reason_required(reason, "A rejection needs a reason.")
    with transaction.atomic():
        approval = row_lock(Approval.objects.filter(pk=approval_id))
        if approval is None:
            raise ApprovalNotFoundError(f"There is no approval {approval_id}.")
        approval_check(approval=approval, actor=actor)
        approval.status = Approval.Status.APPROVED if approve else Approval.Status.REJECTED
        approval.decided_by = actor.user
        approval.decided_at = at or timezone.now()
        approval.decision_reason = cleaned
        approval.save(update_fields=["status", "decided_by", "decided_at", "decision_reason"])
        hint(queue_topic(approval.casino_id))
    return approval


def approval_audit_fields(approval: Approval) -> dict[str, Any]:
    """What the deciding command's audit record says of the approval."""
    return {
        "approval_id": approval.pk,
        "approval_kind": approval.kind,
        "requested_by": approval.requested_by_name,
        "status": approval.status,
        "reason": approval.decision_reason or approval.request_reason,
    }


def approvals_waiting_for(*, user: User | AnonymousUser, casino_id: int) -> QuerySet[Approval]:
    """The pending approvals of a casino that ``user`` may decide: those of the kinds whose
    permission they hold, asked by someone else and not excluding them. Oldest first."""
    if not user.is_authenticated or role_of(user) in POLICY.never_decide:
        return Approval.objects.none()
    kinds = [kind.name for kind in POLICY.kinds.values() if user.has_perm(f"casino.{kind.permission}")]
    pending = Approval.objects.filter(casino_id=casino_id, status=Approval.Status.PENDING, kind__in=kinds)
    return pending.exclude(requested_by=user).order_by("pk")


def approvals_waiting_count(*, user: User | AnonymousUser, casino_id: int) -> int:
    """How many approvals wait for ``user`` (the header's count); the excluded people are
    checked per row, as there are few waiting at once."""
    return sum(
        1
        for approval in approvals_waiting_for(user=user, casino_id=casino_id)
        if user.pk not in _excluded_ids(approval)
    )
