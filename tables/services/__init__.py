"""Live blackjack table services: the only code that writes tables' state.

Every service is keyword-only, runs in its own transaction, locks rows through
``tables/locking.py`` in one order (the round, the table, the player, the box, then the wallet's
rows, the audit chain last; ``casino/locking.py``) and raises ``casino.errors.ServiceError``
subclasses with stable codes (``tables.errors``). The terminal API and the dealer console call
these functions with an :class:`Actor`.
"""

from casino.actors import Actor
from tables.services.bets import bet_cancel, bet_place
from tables.services.cards import card_correct, card_enter
from tables.services.commands import round_apply_overdue_defaults
from tables.services.config import table_config_current
from tables.services.config_changes import (
    table_config_change,
    table_config_proposal_approve,
    table_config_proposal_reject,
    table_limits_change,
    table_settings_change,
)
from tables.services.dealers import (
    dealer_sign_off,
    dealer_sign_on,
    table_close_for_play,
    table_dealer_current,
    table_open_for_play,
    table_play_by_count,
)
from tables.services.decisions import decision_make, insurance_close, insurance_decide
from tables.services.requests import round_request_approve, round_request_create, round_request_reject
from tables.services.rounds import round_close_betting, round_open, round_void
from tables.services.seats import box_bets_behind_set, box_leave, box_take, boxes_ensure
from tables.services.settlement import payout_approve, payout_reject, payouts_decide, round_settle
from tables.services.shoes import shoe_shuffle, shoe_verify, shuffle_due
from tables.services.versions import (
    paytable_version_approve,
    paytable_version_create,
    paytable_version_reject,
    rule_set_version_approve,
    rule_set_version_create,
    rule_set_version_reject,
)

__all__ = [
    "Actor",
    "bet_cancel",
    "bet_place",
    "box_bets_behind_set",
    "box_leave",
    "box_take",
    "boxes_ensure",
    "card_correct",
    "card_enter",
    "dealer_sign_off",
    "dealer_sign_on",
    "decision_make",
    "insurance_close",
    "insurance_decide",
    "payout_approve",
    "payout_reject",
    "payouts_decide",
    "paytable_version_approve",
    "paytable_version_create",
    "paytable_version_reject",
    "round_apply_overdue_defaults",
    "round_close_betting",
    "round_open",
    "round_request_approve",
    "round_request_create",
    "round_request_reject",
    "round_settle",
    "round_void",
    "rule_set_version_approve",
    "rule_set_version_create",
    "rule_set_version_reject",
    "shoe_shuffle",
    "shoe_verify",
    "shuffle_due",
    "table_close_for_play",
    "table_config_change",
    "table_config_current",
    "table_config_proposal_approve",
    "table_config_proposal_reject",
    "table_dealer_current",
    "table_limits_change",
    "table_open_for_play",
    "table_play_by_count",
    "table_settings_change",
]
