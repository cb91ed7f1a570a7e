"""Reads of the pit's accounting: the chip set, a table's counts and state, the slips in flight,
the slip report of a year, a gaming day's summary, and the signatures waiting (of counts, drop
counts and slips), for the floor and for each person's count of what waits for them.

By what they read: ``roles`` (who signs what), ``settings`` (the casino's accounting settings and
chips), ``counts`` (a table's counts and investigations), ``slips``, ``days`` (gaming days) and
``signatures`` (the signatures waiting); each name is imported from here.
"""

from accounting.selectors.counts import (
    TableAccounting,
    count_effective,
    count_roles_signed,
    counts_of_table,
    denomination_differences,
    investigation_waiting,
    is_count_signed,
    last_closer,
    table_accounting,
    tray_ledger_minor,
)
from accounting.selectors.days import (
    ClosedDay,
    GamingDaySummary,
    closed_days,
    current_gaming_day,
    gaming_day_summary,
    gaming_days_to_close,
    open_work_of_day,
)
from accounting.selectors.roles import (
    COUNT_ROLES,
    DROP_ROLE_ORDER,
    DROP_ROLE_PERMISSIONS,
    INVESTIGATION_SUBJECT,
    ROLE_PERMISSIONS,
    SETTINGS_SUBJECT,
    SLIP_STEP_PERMISSIONS,
    SLIP_SUBJECT,
)
from accounting.selectors.settings import (
    chip_values,
    settings_change_waiting,
    settings_of,
)
from accounting.selectors.signatures import (
    SignatureWaiting,
    signatures_waiting,
    signatures_waiting_for,
)
from accounting.selectors.slips import (
    OPEN_SLIP_STATES,
    SlipReport,
    slip_report,
    slip_signed_last,
    slip_state,
    slip_steps,
    slip_void_proposal,
    slip_void_waiting,
    slip_years,
    slips_open,
    slips_recent,
    slips_with_steps,
)

__all__ = [
    "COUNT_ROLES",
    "DROP_ROLE_ORDER",
    "DROP_ROLE_PERMISSIONS",
    "INVESTIGATION_SUBJECT",
    "OPEN_SLIP_STATES",
    "ROLE_PERMISSIONS",
    "SETTINGS_SUBJECT",
    "SLIP_STEP_PERMISSIONS",
    "SLIP_SUBJECT",
    "ClosedDay",
    "GamingDaySummary",
    "SignatureWaiting",
    "SlipReport",
    "TableAccounting",
    "chip_values",
    "closed_days",
    "count_effective",
    "count_roles_signed",
    "counts_of_table",
    "current_gaming_day",
    "denomination_differences",
    "gaming_day_summary",
    "gaming_days_to_close",
    "investigation_waiting",
    "is_count_signed",
    "last_closer",
    "open_work_of_day",
    "settings_change_waiting",
    "settings_of",
    "signatures_waiting",
    "signatures_waiting_for",
    "slip_report",
    "slip_signed_last",
    "slip_state",
    "slip_steps",
    "slip_void_proposal",
    "slip_void_waiting",
    "slip_years",
    "slips_open",
    "slips_recent",
    "slips_with_steps",
    "table_accounting",
    "tray_ledger_minor",
]
