"""Accounting services: the only code that writes the pit's accounting records.

Each command runs in one transaction: checks the signer's permission, takes its locks in the
order of ``accounting/locking.py`` (the gaming day shared, the table row, the record's advisory
lock, the slip counter), validates, inserts its records, lets the wallet move the chips (a slip's
issue only: ``wallet.services.table_fill``/``table_credit``), and appends the audit record last.
A refusal (``ServiceError``) leaves every record, balance and audit record as it was.

Controls: a count is signed by a dealer and a pit boss, two people (``same_person_signed_twice``,
``wrong_role``); an opener is checked against the table's previous closer and a variance above
the casino's threshold opens an investigation that must be resolved, its note approved by a
second person, before the table opens again (``investigation_unresolved``); slip numbers are
drawn from a counter row locked in the slip's own transaction (no gaps); a slip is issued by a
cashier and received by someone else; its chips move only while the table is open and its
closer not taken (``slip_table_closed``), and no closer is taken while one is in flight
(``slip_in_flight``), so that win = closer + credits + drop - opener - fills holds; a void takes
a reason and a second person's approval, and keeps its number; a change of the settings that
weakens a control waits for the accounting office; a closed gaming day takes no more records
(``gaming_day_closed``). Who may decide what waits is ``casino.four_eyes``'s rule alone.

The package, by responsibility: ``checks`` (the signer, the amounts in chips, the moment),
``configuration`` (the chip set and the settings), ``day_close`` (a gaming day's close),
``counts`` (tray counts), ``investigations`` (an opener's variance resolved) and ``slips`` (fills
and credits). Import the services from the package.
"""

from __future__ import annotations

from accounting.services.checks import moment, require_any
from accounting.services.configuration import (
    SETTINGS_LIMITS,
    SETTINGS_REFUSALS,
    SettingsChange,
    accounting_configure,
    accounting_settings_change,
    accounting_settings_decide,
    chip_set_configure,
)
from accounting.services.counts import COUNT_ROLE_ORDER, tray_count_record, tray_count_sign
from accounting.services.day_close import DAY_CLOSE_PERMISSIONS, gaming_day_sign
from accounting.services.investigations import investigation_resolution_decide, investigation_resolve
from accounting.services.slips import slip_issue, slip_receive, slip_request, slip_void, slip_void_decide

__all__ = [
    "COUNT_ROLE_ORDER",
    "DAY_CLOSE_PERMISSIONS",
    "SETTINGS_LIMITS",
    "SETTINGS_REFUSALS",
    "SettingsChange",
    "accounting_configure",
    "accounting_settings_change",
    "accounting_settings_decide",
    "chip_set_configure",
    "gaming_day_sign",
    "investigation_resolution_decide",
    "investigation_resolve",
    "moment",
    "require_any",
    "slip_issue",
    "slip_receive",
    "slip_request",
    "slip_void",
    "slip_void_decide",
    "tray_count_record",
    "tray_count_sign",
]
