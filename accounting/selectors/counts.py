"""A table's counts and its accounting state: the counts as they stand (corrections applied),
their signatures, the tray's balance in the ledger, the investigation of a variance and the
resolution that waits for a second person."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Prefetch, QuerySet

from accounting.models import (
    CountKind,
    InvestigationResolution,
    TrayCount,
    TrayCountSignature,
    VarianceInvestigation,
)
from accounting.selectors.roles import COUNT_ROLES, INVESTIGATION_SUBJECT
from casino.models import Approval, Table
from wallet.models import Account, AccountKind


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
