"""Reads of the pit's accounting: the chip set, a table's counts and state, the slips in flight,
the slip report of a year, a gaming day's summary, and the signatures waiting (of counts, drop
counts and slips), for the floor and for each person's count of what waits for them."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, Prefetch, QuerySet
from django.utils import timezone

from accounting.gaming_days import Shift, gaming_day_of, schedule_of, shift_of
from accounting.models import (
    DEFAULT_CHIP_VALUES_MINOR,
    AccountingSettings,
    ChipDenomination,
    CountKind,
    DropCount,
    DropSignatureRole,
    GamingDaySignature,
    InvestigationResolution,
    SignatureRole,
    Slip,
    SlipCounter,
    SlipSignature,
    SlipStep,
    TrayCount,
    TrayCountSignature,
    VarianceInvestigation,
)
from casino.gaming_day_state import (
    DayEvent,
    gaming_day_close_standing,
    gaming_day_closing_number,
    gaming_day_history,
    gaming_days_history,
    gaming_days_open,
)
from casino.gaming_days import gaming_day_bounds
from casino.models import Approval, Casino, GamingDayClose, Table
from wallet.models import Account, AccountKind

COUNT_ROLES = (SignatureRole.DEALER, SignatureRole.PIT_BOSS)

# The subjects of the accounting's four-eyes approvals (``casino.Approval.subject_type``).
SLIP_SUBJECT = "accounting.slip"
INVESTIGATION_SUBJECT = "accounting.varianceinvestigation"
SETTINGS_SUBJECT = "accounting.accountingsettings"
# Who signs what. The permission of each role of a count's signatures (a user holding two signs
# in the first missing of the services' order, never twice):
ROLE_PERMISSIONS: dict[str, str] = {
    SignatureRole.DEALER: "run_table",
    SignatureRole.PIT_BOSS: "supervise_pit",
    SignatureRole.CASHIER: "operate_cage",
}
# the permissions of each signature of a drop count, in the order a user holding both signs them;
DROP_ROLE_PERMISSIONS: dict[str, tuple[str, ...]] = {
    DropSignatureRole.COUNT_TEAM: ("operate_cage",),
    DropSignatureRole.VERIFIER: ("supervise_pit", "sign_gaming_day"),
}
DROP_ROLE_ORDER = (DropSignatureRole.COUNT_TEAM, DropSignatureRole.VERIFIER)
# and the permissions of each step of a slip after its request (a void's proposal: its decision is
# a four-eyes approval, kind slip_void). Nobody signs two steps of one slip in a row
# (``same_person_signed_twice``).
SLIP_STEP_PERMISSIONS: dict[str, tuple[str, ...]] = {
    SlipStep.ISSUED: ("operate_cage",),
    SlipStep.RECEIVED: ("run_table", "supervise_pit"),
    SlipStep.VOID_PROPOSED: ("supervise_pit", "operate_cage"),
}


def settings_of(casino: Casino) -> AccountingSettings:
    """The casino's accounting settings; the defaults (unsaved) when it has none yet."""
    found = AccountingSettings.objects.filter(casino=casino).first()
    return found if found is not None else AccountingSettings(casino=casino)


def chip_values(casino: Casino) -> list[int]:
    """The values (minor units) of the casino's active chips, highest first; the default chip set
    when none is configured."""
    values = list(
        ChipDenomination.objects.filter(casino=casino, is_active=True)
        .order_by("-value_minor")
        .values_list("value_minor", flat=True)
    )
    if values or ChipDenomination.objects.filter(casino=casino).exists():
        return values
    return sorted(DEFAULT_CHIP_VALUES_MINOR, reverse=True)


def tray_ledger_minor(table: Table) -> int:
    """The table tray's balance in the ledger (0 for a table without a tray account)."""
    account = Account.objects.filter(table=table, kind=AccountKind.TABLE_TRAY).only("balance_minor").first()
    return account.balance_minor if account else 0


def counts_of_table(table: Table) -> QuerySet[TrayCount]:
    return (
        TrayCount.objects.filter(table=table)
        .select_related("counted_by", "corrects")
        .prefetch_related(
            "lines", Prefetch("signatures", queryset=TrayCountSignature.objects.select_related("signer"))
        )
        .order_by("counted_at", "pk")
    )


def count_roles_signed(count: TrayCount) -> set[str]:
    return {signature.role for signature in count.signatures.all()}


def is_count_signed(count: TrayCount) -> bool:
    return count_roles_signed(count) >= set(COUNT_ROLES)


def count_effective(count: TrayCount, counts: list[TrayCount]) -> TrayCount:
    """The count as it stands: its last signed correction (a correction of a correction too),
    else itself."""
    current = count
    by_corrected = {entry.corrects_id: entry for entry in counts if entry.corrects_id is not None}
    while (correction := by_corrected.get(current.pk)) is not None and is_count_signed(correction):
        current = correction
    return current


@dataclass
class TableAccounting:
    """A table's accounting state: open (its last signed count an opener) or closed, its counts
    (oldest first), the count waiting for its second signature, the open investigation, and the
    tray's balance in the ledger against the last count as it stands."""

    table: Table
    is_open: bool
    counts: list[TrayCount]
    pending: TrayCount | None
    last: TrayCount | None
    investigation: VarianceInvestigation | None
    ledger_minor: int
    investigations: list[VarianceInvestigation] = field(default_factory=list)

    @property
    def difference_minor(self) -> int | None:
        return None if self.last is None else self.last.total_minor - self.ledger_minor

    @property
    def is_closing(self) -> bool:
        """Its closing count is taken and waits for its second signature (a correction is not)."""
        pending = self.pending
        return pending is not None and pending.kind == CountKind.CLOSER and pending.corrects_id is None

    @property
    def takes_slips(self) -> bool:
        """Whether a fill or credit may move chips to or from the table now: it is open and its
        closing count is not taken. The chips of a slip then fall between the opener and the
        closer that frame the table's win (MICS: win = closer + credits + drop - opener -
        fills)."""
        return self.is_open and not self.is_closing

    @property
    def is_count_blind(self) -> bool:
        """Whether the tray is being counted without the ledger's figure in view: while the table
        is open (its next count is a closer) or a count waits for its second signature. The
        ledger's balance and the comparison show once the count is signed."""
        return self.is_open or self.pending is not None


def table_accounting(table: Table) -> TableAccounting:
    counts = list(counts_of_table(table))
    signed = [count for count in counts if is_count_signed(count)]
    pending = next((count for count in counts if not is_count_signed(count)), None)
    base = [count for count in signed if count.corrects_id is None]
    last_base = base[-1] if base else None
    investigations = list(
        VarianceInvestigation.objects.filter(table=table)
        .select_related("opener", "closer", "resolution__resolved_by")
        .order_by("-opened_at", "-pk")
    )
    unresolved = next((entry for entry in investigations if not _is_resolved(entry)), None)
    return TableAccounting(
        table=table,
        is_open=last_base is not None and last_base.kind == CountKind.OPENER,
        counts=counts,
        pending=pending,
        last=count_effective(last_base, counts) if last_base else None,
        investigation=unresolved,
        ledger_minor=tray_ledger_minor(table),
        investigations=investigations,
    )


def _is_resolved(investigation: VarianceInvestigation) -> bool:
    try:
        return investigation.resolution is not None
    except InvestigationResolution.DoesNotExist:
        return False


def investigation_waiting(investigation: VarianceInvestigation) -> Approval | None:
    """The resolution of ``investigation`` that waits for a second person, if any: its note is
    the approval's ``request_reason`` (``casino.four_eyes``, kind ``variance_investigation``)."""
    return (
        Approval.objects.filter(
            kind="variance_investigation",
            subject_type=INVESTIGATION_SUBJECT,
            subject_id=str(investigation.pk),
            status=Approval.Status.PENDING,
        )
        .select_related("requested_by")
        .first()
    )


def settings_change_waiting(casino: Casino) -> Approval | None:
    """The change of the casino's accounting settings that waits for a second person, if any
    (it weakens a control: ``casino.four_eyes.weakened_fields``)."""
    return (
        Approval.objects.filter(
            casino=casino,
            kind="accounting_settings",
            subject_type=SETTINGS_SUBJECT,
            status=Approval.Status.PENDING,
        )
        .select_related("requested_by")
        .first()
    )


def last_closer(table: Table) -> TrayCount | None:
    """The table's last signed closing count as it stands (corrections applied)."""
    counts = list(counts_of_table(table))
    closers = [
        count
        for count in counts
        if count.kind == CountKind.CLOSER and count.corrects_id is None and is_count_signed(count)
    ]
    return count_effective(closers[-1], counts) if closers else None


def denomination_differences(count: TrayCount, other: TrayCount) -> list[dict[str, int]]:
    """Per denomination, the amounts of two counts and their difference (``count - other``)."""
    mine = {line.denomination_minor: line.amount_minor for line in count.lines.all()}
    theirs = {line.denomination_minor: line.amount_minor for line in other.lines.all()}
    return [
        {
            "denomination_minor": value,
            "amount_minor": mine.get(value, 0),
            "other_minor": theirs.get(value, 0),
            "difference_minor": mine.get(value, 0) - theirs.get(value, 0),
        }
        for value in sorted(set(mine) | set(theirs), reverse=True)
    ]


# ---------------------------------------------------------------- slips


def _is_rejected_proposal(signature: SlipSignature) -> bool:
    approval = signature.approval if signature.approval_id is not None else None
    return approval is not None and approval.status == Approval.Status.REJECTED


def slip_steps(slip: Slip) -> dict[str, SlipSignature]:
    """The slip's steps in effect, by step: a void's proposal that a second person rejected is no
    longer a step of the slip (its signature and the approval keep the history); of several
    proposals the latest counts."""
    return {
        signature.step: signature
        for signature in slip.signatures.all()
        if not _is_rejected_proposal(signature)
    }


def slip_void_proposal(slip: Slip) -> SlipSignature | None:
    """The slip's latest proposal of a void, whatever its approval's decision."""
    proposals = [signature for signature in slip.signatures.all() if signature.step == SlipStep.VOID_PROPOSED]
    return proposals[-1] if proposals else None


def slip_void_waiting(slip: Slip) -> Approval | None:
    """The approval a proposed void of the slip waits for (``casino.four_eyes``), if any."""
    proposal = slip_void_proposal(slip)
    if proposal is None or proposal.approval_id is None:
        return None
    approval = proposal.approval
    return approval if approval is not None and approval.is_pending else None


def slip_state(slip: Slip) -> str:
    """The slip's last step: requested, issued, received, void_proposed or voided."""
    steps = slip_steps(slip)
    for step in (SlipStep.VOIDED, SlipStep.RECEIVED, SlipStep.ISSUED, SlipStep.VOID_PROPOSED):
        if step in steps:
            return str(step)
    return str(SlipStep.REQUESTED)


def slips_with_steps() -> QuerySet[Slip]:
    return Slip.objects.select_related("table").prefetch_related(
        "lines",
        Prefetch(
            "signatures",
            queryset=SlipSignature.objects.select_related(
                "signer", "transfer", "approval__requested_by", "approval__decided_by"
            ),
        ),
    )


OPEN_SLIP_STATES = frozenset({SlipStep.REQUESTED, SlipStep.ISSUED, SlipStep.VOID_PROPOSED})


def slips_open(casino: Casino, *, table: Table | None = None) -> list[Slip]:
    """The slips not yet received nor voided, oldest first."""
    slips = (
        slips_with_steps()
        .filter(casino=casino)
        .exclude(signatures__step__in=[SlipStep.RECEIVED, SlipStep.VOIDED])
    )
    if table is not None:
        slips = slips.filter(table=table)
    return list(slips.order_by("year", "number"))


def slip_signed_last(table_id: int) -> int:
    """The id of the last step signed on any slip of the table (0 for none): what a screen that
    shows the table's slips in flight compares to know they changed. One statement."""
    last = SlipSignature.objects.filter(slip__table_id=table_id).order_by("-pk").values_list("pk", flat=True)
    return last.first() or 0


def slips_recent(casino: Casino, *, limit: int = 20) -> list[Slip]:
    return list(slips_with_steps().filter(casino=casino).order_by("-year", "-number")[:limit])


@dataclass(frozen=True)
class SlipReport:
    """A year's slips: each number from 1 to the counter's last, the slip holding it (None for a
    number no slip holds: there should be none), its state; the voids; the unused numbers."""

    year: int
    last_number: int
    rows: list[tuple[int, Slip | None, str]]
    voids: list[Slip]
    unused: list[int]
    totals_minor: dict[str, int]


def slip_report(casino: Casino, year: int) -> SlipReport:
    counter = SlipCounter.objects.filter(casino=casino, year=year).first()
    last_number = counter.last_number if counter else 0
    slips = {slip.number: slip for slip in slips_with_steps().filter(casino=casino, year=year)}
    rows: list[tuple[int, Slip | None, str]] = []
    voids, unused = [], []
    totals = {"fill": 0, "credit": 0}
    for number in range(1, max([last_number, *slips], default=0) + 1):
        slip = slips.get(number)
        if slip is None:
            unused.append(number)
            rows.append((number, None, "unused"))
            continue
        state = slip_state(slip)
        rows.append((number, slip, state))
        if state == SlipStep.VOIDED:
            voids.append(slip)
        elif state == SlipStep.RECEIVED:
            totals[slip.kind] += slip.total_minor
    return SlipReport(
        year=year, last_number=last_number, rows=rows, voids=voids, unused=unused, totals_minor=totals
    )


def slip_years(casino: Casino) -> list[int]:
    return list(SlipCounter.objects.filter(casino=casino).order_by("-year").values_list("year", flat=True))


# ---------------------------------------------------------------- gaming days


@dataclass(frozen=True)
class GamingDaySummary:
    """A gaming day as the day page shows it: its current shift (the current day only), its
    standing closing (None while open), the signatures of the closing under way, when it ends,
    its counts and slips, and its history of closings and reopenings."""

    day: dt.date
    shift: Shift | None
    closed: GamingDayClose | None
    open_slips: int
    unsigned_counts: int
    counts: int
    slips: int
    signatures: list[GamingDaySignature] = field(default_factory=list)
    ends_at: dt.datetime | None = None
    has_ended: bool = False
    history: list[DayEvent] = field(default_factory=list)

    @property
    def closes_with_next_signature(self) -> bool:
        """One of the two signatures is in: the next one closes the day."""
        return self.closed is None and len(self.signatures) == 1


def gaming_day_summary(casino: Casino, day: dt.date, *, now: dt.datetime | None = None) -> GamingDaySummary:
    moment = now or timezone.now()
    current = gaming_day_of(schedule_of(casino), moment) == day
    counts = list(
        TrayCount.objects.filter(table__casino=casino, gaming_day=day).prefetch_related("signatures")
    )
    open_slips = (
        Slip.objects.filter(casino=casino, gaming_day=day)
        .exclude(signatures__step__in=[SlipStep.RECEIVED, SlipStep.VOIDED])
        .count()
    )
    closed = gaming_day_close_standing(casino.pk, day)
    closing = closed.closing if closed is not None else gaming_day_closing_number(casino.pk, day)
    _starts_at, ends_at = gaming_day_bounds(casino, day)
    return GamingDaySummary(
        day=day,
        shift=shift_of(schedule_of(casino), moment) if current else None,
        closed=closed,
        open_slips=open_slips,
        unsigned_counts=sum(1 for count in counts if not is_count_signed(count)),
        counts=len(counts),
        slips=Slip.objects.filter(casino=casino, gaming_day=day).count(),
        signatures=list(
            GamingDaySignature.objects.filter(casino=casino, gaming_day=day, closing=closing).select_related(
                "signed_by"
            )
        ),
        ends_at=ends_at,
        has_ended=moment >= ends_at,
        history=gaming_day_history(casino.pk, day),
    )


def gaming_days_to_close(
    casino: Casino, *, now: dt.datetime | None = None, limit: int = 7
) -> list[GamingDaySummary]:
    """The open gaming days before the current one, oldest first (the first of them is the one to
    close next; at most ``limit - 1`` of the oldest), then the current day, open or not."""
    moment = now or timezone.now()
    today = casino.gaming_day(moment)
    earlier = gaming_days_open(casino, until=today - dt.timedelta(days=1))[: limit - 1]
    return [gaming_day_summary(casino, day, now=moment) for day in [*earlier, today]]


@dataclass(frozen=True)
class ClosedDay:
    day: dt.date
    close: GamingDayClose
    history: list[DayEvent]


def closed_days(casino: Casino, *, limit: int = 14) -> list[ClosedDay]:
    """The latest closed gaming days (their standing closing), newest first, with their history."""
    closes = list(
        GamingDayClose.objects.filter(casino=casino, reopening__isnull=True)
        .select_related("closed_by")
        .order_by("-gaming_day")[:limit]
    )
    history = gaming_days_history(casino.pk, [close.gaming_day for close in closes])
    return [ClosedDay(close.gaming_day, close, history.get(close.gaming_day, [])) for close in closes]


def current_gaming_day(casino: Casino, now: dt.datetime | None = None) -> dt.date:
    """The gaming day of now (or of ``now``): the venue's one rule, ``Casino.gaming_day``."""
    return casino.gaming_day(now)


def open_work_of_day(casino_id: int, day: dt.date) -> dict[str, Any]:
    """What keeps a gaming day from closing: slips in flight, tray counts and drop box counts
    not yet signed twice."""
    counts = TrayCount.objects.filter(table__casino_id=casino_id, gaming_day=day).prefetch_related(
        "signatures"
    )
    unsigned = [count.pk for count in counts if not is_count_signed(count)]
    slips = list(
        Slip.objects.filter(casino_id=casino_id, gaming_day=day)
        .exclude(signatures__step__in=[SlipStep.RECEIVED, SlipStep.VOIDED])
        .values_list("number", flat=True)
    )
    drops = list(
        DropCount.objects.filter(table__casino_id=casino_id, gaming_day=day)
        .annotate(signed=Count("signatures"))
        .filter(signed__lt=2)
        .values_list("pk", flat=True)
    )
    return {"unsigned_counts": unsigned, "open_slips": slips, "unsigned_drop_counts": drops}


# ---------------------------------------------------------------- signatures waiting


@dataclass(frozen=True)
class SignatureWaiting:
    """A signature that a count, a drop count or a slip waits for, at its table: ``kind``
    (``opener``, ``closer``, ``drop_count``, ``fill``, ``credit``), ``waits_for`` (the missing
    roles of a count, ``issued``, ``received`` or ``voided`` for a slip), the permissions any of
    which signs it, and who may not (who signed the step before)."""

    kind: str
    object_id: int
    table: Table
    amount_minor: int
    gaming_day: dt.date
    since: dt.datetime
    waits_for: tuple[str, ...]
    permissions: tuple[str, ...]
    signed_by: frozenset[int]
    number: str = ""
    shift: int | None = None

    def may_sign(self, user: User | AnonymousUser) -> bool:
        return (
            user.is_authenticated
            and user.pk not in self.signed_by
            and any(user.has_perm(f"casino.{codename}") for codename in self.permissions)
        )


def _closed_days(casino_id: int) -> QuerySet[GamingDayClose, dt.date]:
    return GamingDayClose.objects.filter(casino_id=casino_id).values_list("gaming_day", flat=True)


def _counts_waiting(
    counts: QuerySet[Any], kind: str | None, permissions: Mapping[str, tuple[str, ...]]
) -> list[SignatureWaiting]:
    """The counts (tray or drop box counts: two signatures, one per role, of ``permissions`` in
    the order of signing) of open days not signed twice, each waiting for its missing roles."""
    waiting = []
    for count in (
        counts.annotate(signed=Count("signatures"))
        .filter(signed__lt=len(permissions))
        .select_related("table")
        .prefetch_related("signatures")
    ):
        signatures = list(count.signatures.all())
        signed = {signature.role for signature in signatures}
        missing = tuple(role for role in permissions if role not in signed)
        waiting.append(
            SignatureWaiting(
                kind=kind or count.kind,
                object_id=count.pk,
                table=count.table,
                amount_minor=count.total_minor,
                gaming_day=count.gaming_day,
                since=count.counted_at,
                waits_for=missing,
                permissions=tuple(codename for role in missing for codename in permissions[role]),
                signed_by=frozenset(signature.signer_id for signature in signatures),
                shift=count.shift,
            )
        )
    return waiting


# The step a slip waits for after its last one, and the step whose signer may not sign it.
_SLIP_NEXT = {
    SlipStep.REQUESTED: (SlipStep.ISSUED, SlipStep.REQUESTED),
    SlipStep.ISSUED: (SlipStep.RECEIVED, SlipStep.ISSUED),
}


def _slips_waiting(casino_id: int) -> list[SignatureWaiting]:
    slips = (
        slips_with_steps()
        .filter(casino_id=casino_id)
        .exclude(gaming_day__in=_closed_days(casino_id))
        .exclude(signatures__step__in=[SlipStep.RECEIVED, SlipStep.VOIDED])
    )
    waiting = []
    for slip in slips:
        steps = slip_steps(slip)
        state = slip_state(slip)
        if state not in _SLIP_NEXT:
            # A proposed void waits as a four-eyes approval (kind slip_void), not as a signature.
            continue
        step, before = _SLIP_NEXT[SlipStep(state)]
        waiting.append(
            SignatureWaiting(
                kind=slip.kind,
                object_id=slip.pk,
                table=slip.table,
                amount_minor=slip.total_minor,
                gaming_day=slip.gaming_day,
                since=steps[before].signed_at,
                waits_for=(str(step),),
                permissions=SLIP_STEP_PERMISSIONS[step],
                signed_by=frozenset({steps[before].signer_id}),
                number=f"{slip.year}-{slip.number}",
                shift=slip.shift,
            )
        )
    return waiting


def signatures_waiting(*, casino_id: int) -> list[SignatureWaiting]:
    """Every signature the casino's open gaming days wait for: tray counts (openers, closers)
    and drop counts signed once, slips requested or issued (a proposed void waits as an approval,
    ``casino.four_eyes``); oldest first,
    each with its table. A closed day's are left out (nothing signs in it any more). Four
    queries and their prefetches."""
    closed = _closed_days(casino_id)
    trays = TrayCount.objects.filter(table__casino_id=casino_id).exclude(gaming_day__in=closed)
    drops = DropCount.objects.filter(table__casino_id=casino_id).exclude(gaming_day__in=closed)
    waiting = [
        *_counts_waiting(trays, None, {role: (ROLE_PERMISSIONS[role],) for role in COUNT_ROLES}),
        *_counts_waiting(drops, "drop_count", DROP_ROLE_PERMISSIONS),
        *_slips_waiting(casino_id),
    ]
    return sorted(waiting, key=lambda entry: (entry.since, entry.kind, entry.object_id))


def signatures_waiting_for(*, user: User | AnonymousUser, casino_id: int) -> list[SignatureWaiting]:
    """The signatures waiting that ``user`` may give: they hold a permission of the step and did
    not sign the step before it."""
    return [entry for entry in signatures_waiting(casino_id=casino_id) if entry.may_sign(user)]
