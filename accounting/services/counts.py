"""Tray counts: an opener or a closer of a table, signed by a pit boss and a dealer; the opener
checked against the previous closer."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext as _

from accounting.errors import (
    CountAwaitingSignaturesError,
    InvalidCountError,
    InvestigationUnresolvedError,
    SamePersonSignedTwiceError,
    SignatureNotNeededError,
    SlipInFlightError,
    TableAlreadyOpenError,
    TableNotOpenError,
    WrongRoleError,
)
from accounting.locking import count_lock, table_row_lock
from accounting.models import (
    CountKind,
    SignatureRole,
    TrayCount,
    TrayCountLine,
    TrayCountSignature,
    VarianceInvestigation,
)
from accounting.selectors import (
    count_roles_signed,
    counts_of_table,
    is_count_signed,
    last_closer,
    settings_of,
    slips_open,
    table_accounting,
    tray_ledger_minor,
)
from accounting.services.checks import chip_lines_audited, chip_lines_checked, moment, require_any, role_held
from casino.actors import Actor
from casino.errors import reason_required
from casino.gaming_day_state import gaming_day_writable
from casino.hints import hint, queue_topic
from casino.models import Table
from tables.errors import RoundInProgressError
from tables.models import Round
from tables.services import table_play_by_count

# A user holding both pit permissions signs as a pit boss first (an operator, a superuser).
COUNT_ROLE_ORDER = (SignatureRole.PIT_BOSS, SignatureRole.DEALER)


def _count_role(count_roles: set[str], user: User) -> str:
    """The role ``user`` signs a count in: the first of pit boss and dealer they hold and that
    has not signed yet. Raises ``wrong_role``, ``signature_not_needed``."""
    missing = [role for role in COUNT_ROLE_ORDER if role not in count_roles]
    if not missing:
        raise SignatureNotNeededError(_("This count is signed already."))
    for role in missing:
        if role_held(user, role):
            return str(role)
    labels = {SignatureRole.DEALER: _("a dealer"), SignatureRole.PIT_BOSS: _("a pit boss")}
    needed = ", ".join(str(labels[SignatureRole(role)]) for role in missing)
    raise WrongRoleError(
        _("This count still needs the signature of: %(roles)s.") % {"roles": needed}, needed=needed
    )


def _no_slip_in_flight(table: Table) -> None:
    """A closer counts the tray as it ends the day's play: a fill or credit requested or issued
    and not received (nor voided) would change that tray after the count, and the day's win with
    it (MICS: the closer, the fills and the credits of the same table and day must agree)."""
    in_flight = slips_open(table.casino, table=table)
    if in_flight:
        slip = in_flight[0]
        raise SlipInFlightError(
            _(
                "Slip %(slip)s of this table is not received yet: receive it, or void it before "
                "the cage issues it, then count the table at its close."
            )
            % {"slip": f"{slip.year}-{slip.number}"},
            slip_id=slip.pk,
        )


def tray_count_record(
    *,
    table: Table,
    kind: str,
    amounts: Mapping[int, int],
    actor: Actor,
    corrects: TrayCount | None = None,
    reason: str = "",
) -> TrayCount:
    """A count of ``table``'s tray (``amounts``: minor units per chip value), signed by ``actor``
    as a pit boss or a dealer; it needs the other role's signature (``tray_count_sign``). The
    ledger's tray balance is recorded with it: the difference shows, no money moves.

    An opener needs the table closed (no count yet, or its last count a closer) and no
    unresolved investigation; a closer needs it open. With ``corrects`` (a signed count, of any
    day, even a closed one) and a ``reason``, it is a correction of that count, of its kind,
    recorded in the current gaming day, and the table's state does not change.

    Needs ``supervise_pit`` or ``run_table``. Locks the gaming day (shared), the table row, the
    corrected count, then the audit chain. Raises ``permission_denied``, ``gaming_day_closed``,
    ``invalid_count``, ``count_awaiting_signatures``, ``table_already_open``, ``table_not_open``,
    ``round_in_progress`` (a closer while a round is open), ``investigation_unresolved``,
    ``reason_required``, ``wrong_role``, ``slip_in_flight`` (a closer while a fill or credit of the
    table is requested or issued and not received)."""
    by = require_any(actor, "supervise_pit", "run_table")
    casino = table.casino
    if corrects is not None:
        kind = corrects.kind
        reason = reason_required(reason, _("A correction says why."))
    if kind not in CountKind.values:
        raise InvalidCountError(_("A count is an opener or a closer."))
    lines = chip_lines_checked(casino, amounts, positive_total=False)
    with transaction.atomic():
        now, day, shift = moment(casino)
        gaming_day_writable(casino=casino, at=now)
        locked = table_row_lock(table.pk)
        assert locked is not None
        if corrects is not None:
            count_lock(corrects.pk)
        _count_allowed(locked, kind=kind, corrects=corrects)
        hint(queue_topic(casino.pk))  # a signature waits: the pit's floor, the header's count
        role = _count_role(set(), by)
        count = TrayCount.objects.create(
            table=locked,
            kind=kind,
            gaming_day=day,
            shift=shift,
            counted_at=now,
            counted_by=by,
            total_minor=sum(lines.values()),
            ledger_minor=tray_ledger_minor(locked),
            corrects=corrects,
            correction_reason=reason if corrects is not None else "",
        )
        TrayCountLine.objects.bulk_create(
            TrayCountLine(count=count, denomination_minor=value, amount_minor=amount)
            for value, amount in lines.items()
        )
        TrayCountSignature.objects.create(count=count, role=role, signer=by, signed_at=now)
        actor.audit(
            action="accounting.count_recorded",
            object_type="accounting.traycount",
            object_id=count.pk,
            after={
                "table_id": table.pk,
                "kind": kind,
                "gaming_day": day.isoformat(),
                "shift": shift,
                "lines_minor": chip_lines_audited(lines),
                "total_minor": count.total_minor,
                "ledger_minor": count.ledger_minor,
                "signed_as": role,
                "corrects": corrects.pk if corrects is not None else None,
                "reason": count.correction_reason,
            },
        )
    return count


def _count_allowed(table: Table, *, kind: str, corrects: TrayCount | None) -> None:
    """Refuse a count the table's state does not allow (``table`` locked): none while another
    waits for its second signature; a correction only of a signed count of the table; an opener
    only at a closed table with no unresolved investigation; a closer only at an open table with
    no round in progress and no slip in flight."""
    state = table_accounting(table)
    if state.pending is not None:
        raise CountAwaitingSignaturesError(
            _("The table's count %(count)s waits for its second signature.") % {"count": state.pending.pk},
            count_id=state.pending.pk,
        )
    if corrects is not None:
        if corrects.table_id != table.pk or not is_count_signed(corrects):
            raise CountAwaitingSignaturesError(_("Only a signed count of this table is corrected."))
    elif kind == CountKind.OPENER:
        if state.is_open:
            raise TableAlreadyOpenError(_("The table is open: count it at its close first."))
        if state.investigation is not None:
            raise InvestigationUnresolvedError(
                _("The variance found at the last opening waits for its resolution note."),
                investigation_id=state.investigation.pk,
            )
    elif not state.is_open:
        raise TableNotOpenError(_("The table is closed: its opening count comes first."))
    elif Round.objects.filter(table=table).open().exists():
        raise RoundInProgressError(_("A round is in progress: settle or void it before the closing count."))
    else:
        _no_slip_in_flight(table)


def tray_count_sign(*, count: TrayCount, actor: Actor) -> TrayCountSignature:
    """The count's second signature, by someone else than the first signer, in the role that is
    missing (a dealer's after a pit boss's, or the other way round). When it completes an
    opener, the opener is checked against the table's previous closer: a difference above the
    casino's threshold opens an investigation. A signed opener opens the table for play, a
    signed closer closes it (``tables.services.table_play_by_count``; a correction changes
    neither): "open" and "closed" on every screen come from the counts.

    Needs ``supervise_pit`` or ``run_table``. Locks the gaming days (the count's and today's,
    shared), the table row, the count, then the audit chain. Raises ``permission_denied``,
    ``gaming_day_closed``, ``same_person_signed_twice``, ``wrong_role``,
    ``signature_not_needed``, ``round_in_progress`` (a closer while a round is open),
    ``slip_in_flight`` (a closer while a fill or credit of the table is on its way)."""
    by = require_any(actor, "supervise_pit", "run_table")
    table = count.table
    with transaction.atomic():
        now, _day, _shift = moment(table.casino)
        gaming_day_writable(casino=table.casino, also=[count.gaming_day], at=now)
        table_row_lock(table.pk)
        count_lock(count.pk)
        fresh = counts_of_table(table).get(pk=count.pk)
        hint(queue_topic(table.casino_id))  # the signature no longer waits
        if any(signature.signer_id == by.pk for signature in fresh.signatures.all()):
            raise SamePersonSignedTwiceError(
                _("You signed this count already: the second signature is someone else's.")
            )
        role = _count_role(count_roles_signed(fresh), by)
        if fresh.kind == CountKind.CLOSER and fresh.corrects_id is None:
            _no_slip_in_flight(table)
        signature = TrayCountSignature.objects.create(count=fresh, role=role, signer=by, signed_at=now)
        investigation = None
        if fresh.kind == CountKind.OPENER and fresh.corrects_id is None:
            investigation = _opener_checked(fresh, now)
        if fresh.corrects_id is None:  # the count, not its correction, opens or closes the table
            table_play_by_count(
                table=table, is_open=fresh.kind == CountKind.OPENER, actor=actor, count_id=fresh.pk
            )
        actor.audit(
            action="accounting.count_signed",
            object_type="accounting.traycount",
            object_id=fresh.pk,
            after={
                "table_id": table.pk,
                "kind": fresh.kind,
                "signed_as": role,
                "investigation_id": investigation.pk if investigation else None,
                "variance_minor": investigation.variance_minor if investigation else None,
            },
        )
    return signature


def _opener_checked(opener: TrayCount, now: dt.datetime) -> VarianceInvestigation | None:
    closer = last_closer(opener.table)
    if closer is None:
        return None
    threshold = settings_of(opener.table.casino).variance_threshold_minor
    variance = opener.total_minor - closer.total_minor
    if abs(variance) <= threshold:
        return None
    return VarianceInvestigation.objects.create(
        table=opener.table,
        opener=opener,
        closer=closer,
        variance_minor=variance,
        threshold_minor=threshold,
        opened_at=now,
    )
