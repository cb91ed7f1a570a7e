"""Fill and credit slips: requested at the table, issued by the cage (the chips move in the
ledger), received at the table; a void proposed and decided by four eyes."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from django.db import transaction
from django.db.models import Prefetch
from django.utils import timezone
from django.utils.translation import gettext as _

from accounting.errors import (
    InvalidCountError,
    SamePersonSignedTwiceError,
    SlipStepRefusedError,
    SlipTableClosedError,
)
from accounting.gaming_days import schedule_of
from accounting.locking import slip_counter_lock, slip_lock, table_row_lock
from accounting.models import SignatureRole, Slip, SlipKind, SlipLine, SlipSignature, SlipStep
from accounting.selectors import (
    SLIP_STEP_PERMISSIONS,
    SLIP_SUBJECT,
    slip_steps,
    slip_void_proposal,
    table_accounting,
)
from accounting.services.checks import chip_lines_audited, chip_lines_checked, moment, require_any, role_held
from casino.actors import Actor, require_staff
from casino.errors import ApprovalNotFoundError, reason_required
from casino.four_eyes import approval_audit_fields, approval_decide, approval_request
from casino.gaming_day_state import gaming_day_writable
from casino.hints import desk_topic, hint, queue_topic
from casino.models import Table
from wallet.services import table_credit, table_fill


def _slip_table_checked(table: Table) -> None:
    """Refuse a slip step that moves chips (its request, the cage's issue, the table's receipt)
    when the table is closed or its closing count is taken: the chips would reach a tray after
    the count that closes the table's win (the closer) or before the one that opens it (the
    opener), and win = closer + credits + drop - opener - fills would miss or double them.
    Call it holding the table row's lock (counts of the table take turns with it)."""
    state = table_accounting(table)
    if not state.takes_slips:
        raise SlipTableClosedError(
            _(
                "%(table)s is closed, or its closing count is taken: no fill or credit moves chips "
                "to or from it until its next opening count is signed."
            )
            % {"table": table.name},
            table=table.name,
        )


def _slip_hinted(casino_id: int) -> None:
    """A slip moves: the casino's fills-and-credits desk and what waits for a signature (the pit's
    floor, the header's count) are hinted for the commit (``casino/hints.py``); its table's
    console, by the table row's lock."""
    hint(desk_topic(casino_id), queue_topic(casino_id))


def slip_request(*, table: Table, kind: str, amounts: Mapping[int, int], actor: Actor) -> Slip:
    """A pit boss asks for a fill (chips from the cage to the tray) or a credit (chips from the
    tray back to the cage), ``amounts`` in minor units per chip value. The slip takes the next
    number of the casino's calendar year (local time), drawn from the counter row in this very
    transaction: a refused or rolled-back request draws none, so the numbers have no gaps.

    The table must take slips: open (its last count an opener signed twice) and its closing
    count not taken, so that the slip's chips fall between the counts that frame its win.

    Needs ``supervise_pit``. Locks the gaming day (shared), the table row (a count of the table
    and its slips take turns), the slip counter, then the audit chain. Raises
    ``permission_denied``, ``gaming_day_closed``, ``invalid_count``, ``slip_table_closed``."""
    by = require_staff(actor, "supervise_pit")
    if kind not in SlipKind.values:
        raise InvalidCountError(_("A slip is a fill or a credit."))
    casino = table.casino
    lines = chip_lines_checked(casino, amounts, positive_total=True)
    with transaction.atomic():
        now, day, shift = moment(casino)
        gaming_day_writable(casino=casino, at=now)
        locked = table_row_lock(table.pk)
        assert locked is not None
        _slip_table_checked(locked)
        _slip_hinted(casino.pk)
        year = now.astimezone(schedule_of(casino).zone).year
        counter = slip_counter_lock(casino_id=casino.pk, year=year)
        counter.last_number += 1
        counter.save(update_fields=["last_number"])
        slip = Slip.objects.create(
            casino=casino,
            year=year,
            number=counter.last_number,
            kind=kind,
            table=table,
            gaming_day=day,
            shift=shift,
            total_minor=sum(lines.values()),
            created_at=now,
        )
        SlipLine.objects.bulk_create(
            SlipLine(slip=slip, denomination_minor=value, amount_minor=amount)
            for value, amount in lines.items()
        )
        SlipSignature.objects.create(
            slip=slip, step=SlipStep.REQUESTED, role=SignatureRole.PIT_BOSS, signer=by, signed_at=now
        )
        actor.audit(
            action="accounting.slip_requested",
            object_type="accounting.slip",
            object_id=slip.pk,
            after={
                "number": f"{year}-{slip.number}",
                "kind": kind,
                "table_id": table.pk,
                "gaming_day": day.isoformat(),
                "lines_minor": chip_lines_audited(lines),
                "total_minor": slip.total_minor,
            },
        )
    return slip


def _slip_locked(slip: Slip) -> tuple[Slip, dict[str, SlipSignature], dt.datetime]:
    """The gaming days' shared locks, the slip's table row, then the slip's own lock; the slip
    read again under them, with its steps in effect. The slip's screens are hinted for the
    commit (``_slip_hinted``): every command that locks a slip moves it."""
    now = timezone.now()
    gaming_day_writable(casino=slip.casino, also=[slip.gaming_day], at=now)
    table_row_lock(slip.table_id)
    slip_lock(slip.pk)
    _slip_hinted(slip.casino_id)
    fresh = (
        Slip.objects.select_related("table__casino", "casino")
        .prefetch_related(
            Prefetch(
                "signatures",
                queryset=SlipSignature.objects.select_related("approval").order_by("signed_at", "pk"),
            )
        )
        .get(pk=slip.pk)
    )
    return fresh, slip_steps(fresh), now


def _step_refused(message: str, steps: Mapping[str, SlipSignature]) -> SlipStepRefusedError:
    return SlipStepRefusedError(message, steps=sorted(steps))


def _is_final(steps: Mapping[str, SlipSignature]) -> bool:
    return SlipStep.VOIDED in steps or SlipStep.RECEIVED in steps


def _slip_number(slip: Slip) -> str:
    return f"{slip.year}-{slip.number}"


def slip_issue(*, slip: Slip, actor: Actor) -> SlipSignature:
    """The cage issues a requested slip: a cashier, not its requester, signs, and the chips
    move in the ledger (``table_fill``: cage -> tray; ``table_credit``: tray -> cage). The table
    must still take slips (open, its closing count not taken).

    Needs ``operate_cage``. Locks the gaming days (shared), the table row, the slip, then (the
    wallet) the accounts and the audit chain. Raises ``permission_denied``,
    ``gaming_day_closed``, ``slip_step_refused`` (issued, voided or with a void waiting for its
    decision), ``same_person_signed_twice``, ``slip_table_closed``, ``insufficient_funds`` (a
    credit above the tray's balance)."""
    by = require_any(actor, *SLIP_STEP_PERMISSIONS[SlipStep.ISSUED])
    with transaction.atomic():
        fresh, steps, now = _slip_locked(slip)
        if SlipStep.ISSUED in steps or _is_final(steps) or SlipStep.VOID_PROPOSED in steps:
            raise _step_refused(_("This slip is not waiting for the cage."), steps)
        if steps[SlipStep.REQUESTED].signer_id == by.pk:
            raise SamePersonSignedTwiceError(_("The requester of a slip does not issue it."))
        _slip_table_checked(fresh.table)
        move = table_fill if fresh.kind == SlipKind.FILL else table_credit
        transfer = move(
            table=fresh.table,
            amount_minor=fresh.total_minor,
            actor=actor,
            reference_type="accounting.slip",
            reference_id=fresh.pk,
        )
        signature = SlipSignature.objects.create(
            slip=fresh,
            step=SlipStep.ISSUED,
            role=SignatureRole.CASHIER,
            signer=by,
            signed_at=now,
            transfer=transfer,
        )
        actor.audit(
            action="accounting.slip_issued",
            object_type="accounting.slip",
            object_id=fresh.pk,
            after={"number": _slip_number(fresh), "kind": fresh.kind, "transfer_id": transfer.pk},
        )
    return signature


def slip_receive(*, slip: Slip, actor: Actor) -> SlipSignature:
    """The table receives an issued slip: a dealer or a pit boss, not the cashier who issued
    it, signs; the table must still take slips (open, its closing count not taken). Needs
    ``run_table`` or ``supervise_pit``. Locks the gaming days (shared), the table row, the slip,
    then the audit chain. Raises ``permission_denied``, ``gaming_day_closed``,
    ``slip_step_refused``, ``same_person_signed_twice``, ``slip_table_closed``."""
    by = require_any(actor, *SLIP_STEP_PERMISSIONS[SlipStep.RECEIVED])
    with transaction.atomic():
        fresh, steps, now = _slip_locked(slip)
        if SlipStep.ISSUED not in steps or _is_final(steps):
            raise _step_refused(_("This slip is not waiting for the table."), steps)
        if steps[SlipStep.ISSUED].signer_id == by.pk:
            raise SamePersonSignedTwiceError(_("The cashier who issued a slip does not receive it."))
        _slip_table_checked(fresh.table)
        role = SignatureRole.PIT_BOSS if role_held(by, SignatureRole.PIT_BOSS) else SignatureRole.DEALER
        signature = SlipSignature.objects.create(
            slip=fresh, step=SlipStep.RECEIVED, role=role, signer=by, signed_at=now
        )
        actor.audit(
            action="accounting.slip_received",
            object_type="accounting.slip",
            object_id=fresh.pk,
            after={"number": _slip_number(fresh), "kind": fresh.kind, "signed_as": role},
        )
    return signature


def slip_void(*, slip: Slip, actor: Actor, reason: str = "") -> SlipSignature:
    """Propose the void of a slip the cage has not issued, with a reason: the proposal waits
    for a second person (``casino.four_eyes``, kind ``slip_void``; decided with
    :func:`slip_void_decide`), and the cage refuses to issue the slip meanwhile. The slip keeps
    its number, shown as voided in the report once the void is approved.

    Needs ``supervise_pit`` or ``operate_cage``. Locks the gaming days (shared), the table row,
    the slip, then the audit chain. Raises ``permission_denied``, ``reason_required``,
    ``gaming_day_closed``, ``slip_step_refused`` (issued, received or voided),
    ``approval_pending`` (a void of it waits already)."""
    by = require_any(actor, *SLIP_STEP_PERMISSIONS[SlipStep.VOID_PROPOSED])
    reason = reason_required(reason, _("A void says why."))
    role = SignatureRole.PIT_BOSS if role_held(by, SignatureRole.PIT_BOSS) else SignatureRole.CASHIER
    with transaction.atomic():
        fresh, steps, now = _slip_locked(slip)
        if SlipStep.ISSUED in steps or _is_final(steps):
            raise _step_refused(_("Only a slip the cage has not issued is voided."), steps)
        approval = approval_request(
            actor=actor,
            casino=fresh.casino,
            kind="slip_void",
            subject_type=SLIP_SUBJECT,
            subject_id=fresh.pk,
            summary=f"Void of {fresh.kind} slip {_slip_number(fresh)} at {fresh.table.name}",
            place=fresh.table.name,
            amount_minor=fresh.total_minor,
            reason=reason,
            at=now,
        )
        signature = SlipSignature.objects.create(
            slip=fresh,
            step=SlipStep.VOID_PROPOSED,
            role=role,
            signer=by,
            signed_at=now,
            reason=reason,
            approval=approval,
        )
        actor.audit(
            action="accounting.slip_void_proposed",
            object_type="accounting.slip",
            object_id=fresh.pk,
            after={"number": _slip_number(fresh), "kind": fresh.kind, **approval_audit_fields(approval)},
        )
    return signature


def slip_void_decide(
    *, slip: Slip, approval_id: int, actor: Actor, approve: bool, reason: str = ""
) -> SlipSignature | None:
    """A second person decides the proposed void of a slip (``approval_id``, the approval its
    latest proposal waits for): approved, the slip is voided (its ``voided`` step, signed by the
    decider, returned); rejected with a reason, the slip waits for the cage again (``None``).
    Who may decide is ``casino.four_eyes``'s rule (kind ``slip_void``: ``view_accounting``, not
    the proposer).

    Locks the gaming days (shared), the table row, the slip, the approval, then the audit chain.
    Raises ``gaming_day_closed``, ``approval_not_found`` (no such proposal of this slip),
    ``permission_denied``, ``four_eyes_required``, ``approval_decided``, ``reason_required``."""
    with transaction.atomic():
        fresh, _steps, now = _slip_locked(slip)
        proposal = slip_void_proposal(fresh)
        if proposal is None or proposal.approval_id != approval_id:
            raise ApprovalNotFoundError(
                _("No void of slip %(number)s waits for this decision.") % {"number": _slip_number(fresh)}
            )
        decided = approval_decide(
            approval_id=approval_id, actor=actor, approve=approve, reason=reason, at=now
        )
        signature = None
        if approve:
            assert decided.decided_by is not None  # approval_decide: a staff member decided
            role = (
                SignatureRole.PIT_BOSS
                if role_held(decided.decided_by, SignatureRole.PIT_BOSS)
                else SignatureRole.ACCOUNTING
            )
            signature = SlipSignature.objects.create(
                slip=fresh,
                step=SlipStep.VOIDED,
                role=role,
                signer=decided.decided_by,
                signed_at=now,
                reason=proposal.reason,
                approval=decided,
            )
        actor.audit(
            action="accounting.slip_voided" if approve else "accounting.slip_void_rejected",
            object_type="accounting.slip",
            object_id=fresh.pk,
            after={"number": _slip_number(fresh), "kind": fresh.kind, **approval_audit_fields(decided)},
        )
    return signature
