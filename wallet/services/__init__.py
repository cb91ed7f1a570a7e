"""Wallet services: the only code that writes to the ledger.

Every money command, in ONE transaction: validates, checks that the gaming day it writes into is
open (``casino.gaming_day_state.gaming_day_writable``, the day's shared lock first: a transfer is
a record of the day it is made in; a reversal also of the day of the transfer it reverses; a
refusal is ``gaming_day_closed``), locks the domain row it acts on, locks the accounts in id order (``wallet/locking.py``), writes one transfer with its postings (summing to
zero), moves the cached balances, and appends the audit record as its last write. A refused
command (``ServiceError``) leaves balances, postings, holds and audit records as they were.

No service takes an idempotency key: the edge that receives a request (the terminal API, the
seed) wraps the service call in ``casino.idempotency.idempotent``, one record per request. A
command the back office itself may repeat is refused by the state of its rows: a hold that is not
open (``hold_not_open``), a payout that is not pending (``payout_not_pending``), an adjustment
decided already (``approval_decided``), a transfer already reversed (``transfer_already_reversed``), a round
already settled (``round_already_settled``).

Hot path for a live table: ``hold_place`` touches only the bettor's own account row (a
conditional UPDATE) and inserts a hold, in one statement (``wallet/sql.py``); no row shared by the
table's bettors is written per bet and no audit record is appended (the bet is recorded in the
round's event log). The table's accounts move once per round, in ``holds_settle``. A hold runs
inside the bet's command, which checked the gaming day (``tables.services.bets.bet_place``,
``tables.services.commands.bet_hold``): it does not check it again.

The package, by responsibility: ``ledger`` (the transfer and its postings, shared by every
command), ``accounts`` (a table's and a casino's accounts), ``cage`` (buy-ins, cash-outs, fills
and credits), ``transfers`` (between players, tips, reversals), ``adjustments`` (balance
corrections and their approval), ``holds`` (a bet's stake held, holds voided), ``settlement``
(held stakes settled for a round or a game) and ``payouts`` (payouts that waited for approval,
decided). Import the services from the package.
"""

from __future__ import annotations

from casino.errors import ServiceError
from wallet.errors import CurrencyMismatchError
from wallet.services.accounts import table_accounts_open, venue_accounts_open
from wallet.services.adjustments import (
    ADJUSTMENT_APPROVAL_KIND,
    DEFAULT_ADJUSTMENT_APPROVAL_THRESHOLD_MINOR,
    adjustment_approval_threshold_minor,
    adjustment_approve,
    adjustment_reject,
    balance_adjust,
)
from wallet.services.cage import (
    cage_buy_in,
    cage_cash_out,
    system_buy_in,
    system_table_fill,
    table_credit,
    table_fill,
)
from wallet.services.holds import hold_place, holds_void
from wallet.services.ledger import MAX_AMOUNT_MINOR
from wallet.services.payouts import pending_payouts_decide
from wallet.services.settlement import (
    SETTLEMENT_RULES,
    Settlement,
    SettlementLine,
    SettlementReference,
    holds_settle,
)
from wallet.services.transfers import tip_from_wallet, transfer_between_players, transfer_reverse

__all__ = [
    "ADJUSTMENT_APPROVAL_KIND",
    "DEFAULT_ADJUSTMENT_APPROVAL_THRESHOLD_MINOR",
    "MAX_AMOUNT_MINOR",
    "SETTLEMENT_RULES",
    "CurrencyMismatchError",
    "ServiceError",
    "Settlement",
    "SettlementLine",
    "SettlementReference",
    "adjustment_approval_threshold_minor",
    "adjustment_approve",
    "adjustment_reject",
    "balance_adjust",
    "cage_buy_in",
    "cage_cash_out",
    "hold_place",
    "holds_settle",
    "holds_void",
    "pending_payouts_decide",
    "system_buy_in",
    "system_table_fill",
    "table_accounts_open",
    "table_credit",
    "table_fill",
    "tip_from_wallet",
    "transfer_between_players",
    "transfer_reverse",
    "venue_accounts_open",
]
