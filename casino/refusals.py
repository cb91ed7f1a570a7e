"""A refusal in the words of the active language.

The services and the engine refuse with a stable ``code`` and an English message built where they
refuse (often with the specifics: ``the main minimum is 500``, in minor units: the API's words).
A screen shows the sentence of :data:`REFUSALS` for the code with the specifics (``%(name)s``
filled from ``error.details``, money in the language's form) when the error carries them all, in
every language; else, in English, the service's own message, and in the other languages the
sentence without the specifics. ``tests/casino/test_translations.py`` fails on a code that the
services, the wallet, the tables or the engine can raise and that has no sentence here.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils import timezone, translation
from django.utils.formats import date_format
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from casino.errors import ServiceError
from casino.money import money
from games.errors import GameError


@dataclass(frozen=True)
class Refusal:
    """The sentence of one code: ``text`` without the specifics, and ``detailed`` with them
    (``%(name)s`` placeholders, each a key of the error's ``details``)."""

    text: Promise
    detailed: Promise | None = None


REFUSALS: dict[str, Refusal] = {
    # --- staff accounts and login
    "login_failed": Refusal(_("Wrong username or password.")),
    "account_locked": Refusal(
        _(
            "This account is locked after too many failed logins. Try again later or ask an operator to unlock it."
        ),
        _(
            "This account is locked after too many failed logins until %(locked_until)s. "
            "Try again then or ask an operator to unlock it."
        ),
    ),
    "account_disabled": Refusal(_("This account is disabled. Ask an operator to enable it.")),
    "account_already_disabled": Refusal(_("This account is disabled already.")),
    "account_already_enabled": Refusal(_("This account is enabled already.")),
    "username_taken": Refusal(_("This username is taken: choose another one.")),
    "invalid_username": Refusal(_("A username is 1 to 150 letters, digits and @ . + - _ characters.")),
    "invalid_password": Refusal(
        _("The password is not accepted: choose a longer, less common one."),
        _("The password is not accepted: %(messages)s"),
    ),
    "unknown_role": Refusal(_("There is no such role.")),
    "wrong_password": Refusal(_("The current password is not right.")),
    "passwords_differ": Refusal(_("The new password and its repetition differ.")),
    "password_unchanged": Refusal(_("Choose a password other than the current one.")),
    "self_disable_refused": Refusal(_("Nobody disables their own account: ask another operator.")),
    "self_role_grant_refused": Refusal(_("Nobody grants a role to themselves: ask another operator.")),
    "self_password_reset_refused": Refusal(_("Nobody resets their own password here: ask another operator.")),
    "superuser_not_managed": Refusal(_("Superuser accounts are not managed on the staff pages.")),
    "unknown_language": Refusal(
        _("The back office has no such language."),
        _("The back office has no language “%(language)s”."),
    ),
    "permission_denied": Refusal(_("You do not have permission to do that.")),
    "staff_only": Refusal(_("Only a dealer signed in on the console makes this request.")),
    # --- players, cards and their sessions
    "card_number_taken": Refusal(_("This card number is already issued.")),
    "card_already_locked": Refusal(_("This card is locked already.")),
    "card_not_locked": Refusal(_("This card is not locked.")),
    "invalid_pin": Refusal(_("A PIN is 4 to 8 digits.")),
    "pin_mismatch": Refusal(_("The two PINs differ.")),
    "player_sign_in_failed": Refusal(_("Wrong card number or PIN.")),
    "player_locked": Refusal(_("This card is locked after too many wrong PINs; ask staff for help.")),
    "player_inactive": Refusal(_("This player card is deactivated.")),
    "player_session_ended": Refusal(_("This player session has ended; sign in again.")),
    "player_session_expired": Refusal(_("This player session has expired; sign in again.")),
    "player_token_invalid": Refusal(_("This player session is not valid; sign in again.")),
    "player_token_missing": Refusal(_("A player must sign in at this terminal first.")),
    # --- terminals and their credentials
    "credential_invalid": Refusal(_("Missing or unknown terminal credential.")),
    "credential_revoked": Refusal(_("This terminal credential has been revoked.")),
    "credential_expired": Refusal(_("This terminal credential has expired.")),
    "credential_already_revoked": Refusal(_("The credential is already revoked.")),
    "invalid_lifetime": Refusal(_("A credential must be valid for some time.")),
    "terminal_inactive": Refusal(_("This terminal is deactivated.")),
    "terminal_name_taken": Refusal(_("A terminal of this name exists already.")),
    "invalid_terminal_kind": Refusal(_("There is no such kind of terminal.")),
    "table_not_in_casino": Refusal(_("The table belongs to another casino.")),
    "terminal_without_table": Refusal(_("This terminal is not placed at a table.")),
    "not_a_player_terminal": Refusal(_("Players sign in at a player terminal.")),
    "not_a_card_reader": Refusal(_("Only a card reader sends cards.")),
    "not_a_dealer_terminal": Refusal(_("Only a dealer terminal runs the round.")),
    "wrong_table": Refusal(_("This terminal belongs to another table.")),
    # --- the table, its dealer and its configuration
    "table_refused": Refusal(_("The table refused this command.")),
    "table_not_found": Refusal(_("There is no such table.")),
    "table_name_taken": Refusal(_("A table of this name exists already.")),
    "table_closed": Refusal(_("The table is closed.")),
    "table_open": Refusal(_("The table is open: close it first, or let the next dealer sign on.")),
    "not_a_blackjack_table": Refusal(_("This console runs blackjack tables only.")),
    "already_signed_on": Refusal(_("You are signed on to this table already.")),
    "not_signed_on": Refusal(_("Sign on to this table first.")),
    "not_table_dealer": Refusal(_("Another dealer is signed on to this table.")),
    "stale_screen": Refusal(_("The table moved on since your screen was drawn: look again, then act.")),
    "invalid_configuration": Refusal(_("This configuration is not valid.")),
    "invalid_ruleset": Refusal(_("This rule set is not valid.")),
    "config_change_pending": Refusal(
        _("A change of this table's configuration waits for approval: approve or reject it first.")
    ),
    "house_edge_not_computed": Refusal(
        _(
            "The main game's house edge of this version is not computed yet: "
            "approve it once the edge is shown."
        )
    ),
    "decisions_from_terminals": Refusal(_("At this table the players decide at their terminals.")),
    "no_change": Refusal(_("Nothing changed: the form holds the current configuration.")),
    "not_editable": Refusal(_("Versions of this game's rule sets are not edited here.")),
    # --- shoe and shuffle
    "shuffle_due": Refusal(_("Shuffle due: record the shuffle first.")),
    "shoe_exhausted": Refusal(_("The shoe is exhausted: void the round and shuffle.")),
    "invalid_shoe": Refusal(_("This shoe is not valid.")),
    "virtual_shoe": Refusal(_("This table deals from a virtual shoe.")),
    "invalid_cut_card": Refusal(_("The cut card goes between the first and the last card of the shoe.")),
    # --- rounds
    "round_in_progress": Refusal(_("A round is in progress: settle or void it first.")),
    "round_in_play_elsewhere": Refusal(
        _(
            "A round is in play at the table you deal: finish it, or let another dealer take over there first."
        ),
        _(
            "Round %(number)s is in play at %(table)s, where you deal: finish it, or let another "
            "dealer take over there, then sign on here."
        ),
    ),
    "round_not_open": Refusal(_("No round is open at this table.")),
    "round_not_played": Refusal(_("The round is not played to the end yet.")),
    "round_not_settled": Refusal(_("The round is not settled yet.")),
    "round_already_settled": Refusal(_("The round is settled already.")),
    "decision_deadline_passed": Refusal(_("The time for this decision has run out.")),
    "illegal_action": Refusal(_("The rules do not allow this now.")),
    "game_error": Refusal(_("The rules do not allow this.")),
    "invalid_snapshot": Refusal(_("The round's record cannot be read.")),
    "invalid_round_script": Refusal(_("This round script is not valid.")),
    "simulation_stuck": Refusal(_("The simulated round did not finish.")),
    # --- boxes, seats and bets
    "no_such_box": Refusal(_("The table has no such box.")),
    "box_taken": Refusal(_("This box is taken already.")),
    "box_not_taken": Refusal(_("Nobody plays this box: there is nobody to bet behind.")),
    "box_not_playing": Refusal(_("This box does not play this round.")),
    "box_limit_reached": Refusal(_("The player plays the most boxes allowed already.")),
    "not_box_owner": Refusal(_("Only the box's owner decides for it.")),
    "not_seated": Refusal(_("This player is not at this table."), _("Nobody sits in seat %(seat_number)s.")),
    "invalid_seat": Refusal(_("This seat is not valid.")),
    "bet_refused": Refusal(_("The bet is refused.")),
    "betting_closed": Refusal(_("No more bets: betting is closed.")),
    "invalid_stake": Refusal(_("A stake is a positive whole amount.")),
    "invalid_bet": Refusal(_("This bet is not valid.")),
    "invalid_bet_kind": Refusal(_("There is no such kind of bet here.")),
    "stake_below_table_min": Refusal(
        _("The stake is below the table minimum."),
        _("The stake is below the table minimum of %(minimum_minor)s."),
    ),
    "stake_above_table_max": Refusal(
        _("The stake is above the table maximum."),
        _("The stake is above the table maximum of %(maximum_minor)s."),
    ),
    "duplicate_bet_id": Refusal(_("This bet exists already.")),
    "duplicate_side_bet": Refusal(_("This box has this side bet already.")),
    "no_such_bet": Refusal(_("There is no such bet in this round.")),
    "not_bet_owner": Refusal(_("Only the player who placed the bet does that.")),
    "bet_behind_own_box": Refusal(_("A player never bets behind their own box.")),
    "bet_behind_not_offered": Refusal(_("This table has no bets behind.")),
    "bets_behind_forbidden": Refusal(_("The owner of this box takes no bets behind.")),
    "side_bet_not_offered": Refusal(_("This table has no such side bet.")),
    "side_bet_without_main_bet": Refusal(_("A side bet needs the player's main bet on the same box.")),
    # --- cards
    "invalid_card": Refusal(_("This is not a card: type it as KH, TD or 10d.")),
    "card_expected": Refusal(_("A card is expected first.")),
    "card_not_expected": Refusal(_("No card is expected now.")),
    "card_not_in_shoe": Refusal(_("The shoe holds no other card of this kind.")),
    "misscan": Refusal(_("Misscan: the card was refused and waits for a pit boss's correction.")),
    "awaiting_correction": Refusal(_("The round waits for a pit boss's correction of a misscan.")),
    "no_misscan": Refusal(_("There is no misscan to correct.")),
    # --- decisions
    "not_your_turn": Refusal(_("It is not this box's or this player's turn.")),
    "hit_not_allowed": Refusal(_("Hit is not allowed on this hand.")),
    "stand_not_allowed": Refusal(_("Stand is not allowed on this hand.")),
    "double_not_allowed": Refusal(_("Double is not allowed on this hand.")),
    "split_not_allowed": Refusal(_("Split is not allowed on this hand.")),
    "surrender_not_allowed": Refusal(_("Surrender is not allowed on this hand.")),
    "decision_missing": Refusal(_("A box has no decision left.")),
    "decision_unused": Refusal(_("Some decisions were never used.")),
    "no_such_decision": Refusal(_("There is no such decision.")),
    "no_such_action": Refusal(_("There is no such action.")),
    "invalid_input": Refusal(_("A number is expected here.")),
    # --- insurance
    "insurance_not_offered": Refusal(_("Insurance is not on offer now.")),
    "insurance_already_decided": Refusal(_("Insurance is decided already for this bet.")),
    "insurance_stake_above_half": Refusal(_("Insurance is at most half of the stake.")),
    "insurance_stake_not_allowed": Refusal(_("Insurance is exactly half of the stake.")),
    "insurance_stake_not_exact": Refusal(_("Half of this stake is not a whole number of the table's chips.")),
    "insurance_stake_not_unit_multiple": Refusal(
        _("The insurance is not a whole number of the table's chips.")
    ),
    "even_money_not_offered": Refusal(_("Even money is not offered here.")),
    # --- canasta (the card room's engine)
    "already_asked": Refusal(_("The partner was asked already this turn.")),
    "already_drawn": Refusal(_("The player has drawn already this turn.")),
    "answer_pending": Refusal(_("The partner has not answered yet.")),
    "ask_before_melding": Refusal(_("Ask the partner before melding.")),
    "black_threes_final_discard": Refusal(_("After black threes every card must be melded.")),
    "black_threes_only_going_out": Refusal(_("Black threes are melded only when going out.")),
    "cannot_go_out": Refusal(_("The side cannot go out yet.")),
    "card_not_held": Refusal(_("The player does not hold this card.")),
    "deal_finished": Refusal(_("The deal is over.")),
    "deal_too_long": Refusal(_("The deal does not end.")),
    "discard_required": Refusal(_("A turn ends with a discard.")),
    "double_go_out_pending": Refusal(_("The partner may lay out a hand first.")),
    "double_out_all_or_nothing": Refusal(_("All of the hand or nothing.")),
    "draw_first": Refusal(_("Draw or take the pile first.")),
    "duplicate_card": Refusal(_("A card is named twice.")),
    "empty_meld": Refusal(_("There is nothing to meld.")),
    "invalid_deal": Refusal(_("This deal is not valid.")),
    "invalid_dealer": Refusal(_("There is no such seat to deal.")),
    "invalid_meld": Refusal(_("This meld is not valid.")),
    "invalid_scores": Refusal(_("Every side needs its score.")),
    "invalid_shuffle": Refusal(_("This shuffle is not valid.")),
    "joker_canasta_from_hand": Refusal(_("A joker canasta is laid from the hand.")),
    "meld_closed": Refusal(_("Nothing may be added to a samba or a joker canasta.")),
    "meld_too_short": Refusal(_("A meld has at least three cards.")),
    "mixed_ranks": Refusal(_("A meld is of one natural rank.")),
    "must_go_out": Refusal(_("This turn must end by going out.")),
    "must_keep_a_card": Refusal(_("A player keeps a card after the discard.")),
    "no_discard_after_last_red_three": Refusal(_("No discard after the stock's last card, a red three.")),
    "no_double_go_out": Refusal(_("Nobody may lay out a hand now.")),
    "no_legal_action": Refusal(_("There is no legal action.")),
    "no_partner_to_ask": Refusal(_("There is no partner to ask.")),
    "no_such_meld": Refusal(_("There is no such meld.")),
    "nobody_asked": Refusal(_("Nobody asked.")),
    "not_your_meld": Refusal(_("Never add to an opponent's meld.")),
    "one_card_one_card_pile": Refusal(_("One card in hand never takes a one-card pile.")),
    "opening_minimum_not_met": Refusal(_("The initial meld is below the opening minimum.")),
    "opening_needs_canasta": Refusal(_("The initial meld must hold a canasta laid at once.")),
    "opening_needs_naturals": Refusal(_("The initial meld needs more natural cards.")),
    "own_meld_required": Refusal(_("Lay a meld of your own before adding.")),
    "pile_blocked_black_three": Refusal(_("A black three on top blocks the pile.")),
    "pile_blocked_red_three": Refusal(_("A red three on top cannot be melded.")),
    "pile_blocked_wild": Refusal(_("A wild card on top blocks the pile.")),
    "pile_cards_not_allowed": Refusal(_("Only the top card of the pile is melded now.")),
    "pile_empty": Refusal(_("The pile is empty.")),
    "pile_rank_has_canasta": Refusal(_("The side has a canasta of this rank.")),
    "pile_refused": Refusal(_("The pile cannot be taken.")),
    "pile_take_not_justified": Refusal(_("Nothing in the hand justifies taking the pile.")),
    "pile_too_small": Refusal(_("The pile is too small to be taken.")),
    "rank_already_melded": Refusal(_("The side has a meld of this rank already.")),
    "red_three_not_meldable": Refusal(_("Red threes are never melded.")),
    "sequence_broken": Refusal(_("A sequence grows by the next card of its suit.")),
    "sequence_too_long": Refusal(_("A samba has seven cards.")),
    "stock_empty": Refusal(_("The stock is empty.")),
    "stock_not_empty": Refusal(_("Draw from the stock.")),
    "too_few_naturals": Refusal(_("A meld needs at least two natural cards.")),
    "too_many_wild": Refusal(_("Never more wild cards than natural ones.")),
    "top_card_not_melded": Refusal(_("The top card must be melded.")),
    "top_card_only_must_go_out": Refusal(_("With the top card alone every card is melded.")),
    "top_card_only_not_allowed": Refusal(_("The top card alone is never taken here.")),
    "unknown_option": Refusal(_("There is no such rule option.")),
    "unknown_preset": Refusal(_("There is no such preset.")),
    "wild_on_top_needs_beneath_pair": Refusal(
        _("A wild card on top is taken with the card beneath and a natural of its rank.")
    ),
    "wild_only_meld": Refusal(_("A meld needs natural cards.")),
    "wild_with_threes": Refusal(_("A meld of black threes holds black threes only.")),
    "wrong_rank": Refusal(_("Only black threes join black threes.")),
    "wrong_stage": Refusal(_("Not now: the deal is at another stage.")),
    "black_threes_not_going_out": Refusal(_("Black threes are melded only by the player going out.")),
    "cannot_go_out_now": Refusal(_("Only a player able to go out asks the partner.")),
    "concealed_without_canasta": Refusal(_("A concealed going out lays a canasta.")),
    "deal_not_finished": Refusal(_("The deal is not over.")),
    "double_out_not_allowed": Refusal(_("There is no double going out in this game.")),
    "impossible_deal": Refusal(_("This deal cannot have happened.")),
    "invalid_deal_data": Refusal(_("The deal's record is not valid.")),
    "not_a_red_three": Refusal(_("Only red threes are laid out as red threes.")),
    "not_enough_canastas": Refusal(_("Going out needs more canastas.")),
    "out_player_holds_cards": Refusal(_("The player who went out still holds cards.")),
    "too_many_copies": Refusal(_("The packs hold fewer copies of this card.")),
    "wrong_player_count": Refusal(_("The side has another number of players.")),
    "wrong_side_count": Refusal(_("The game has another number of sides.")),
    # --- gaming days: a closed day takes no write; days close in order after their end, and
    # reopen through four eyes (casino/gaming_day_state.py)
    "gaming_day_closed": Refusal(
        _("The gaming day is closed: nothing more is written into it."),
        _("The gaming day %(day)s is closed: nothing more is written into it."),
    ),
    "gaming_day_already_closed": Refusal(_("This gaming day is closed already.")),
    "gaming_day_not_ended": Refusal(
        _("This gaming day has not ended: it closes after its last shift."),
        _("The gaming day %(day)s closes after its last shift, which ends at %(ends_at)s on %(end_day)s."),
    ),
    "gaming_day_earlier_open": Refusal(
        _("An earlier gaming day is open: close the days in order."),
        _("The gaming day %(open_day)s is open: close the days in order, %(open_day)s first."),
    ),
    "gaming_day_not_closed": Refusal(
        _("This gaming day is open: there is nothing to reopen."),
        _("The gaming day %(day)s is open: there is nothing to reopen."),
    ),
    "gaming_day_later_closed": Refusal(
        _("A later gaming day is closed: the latest closed day reopens first."),
        _("The gaming day %(later_day)s is closed: the latest closed day reopens first."),
    ),
    # --- pit accounting: counts, fills and credits
    "accounting_refused": Refusal(_("The pit accounting refused this.")),
    "count_awaiting_signatures": Refusal(_("This count still waits for its signatures.")),
    "count_not_found": Refusal(_("There is no such count.")),
    "gaming_day_has_open_work": Refusal(
        _("The gaming day still has slips in flight or counts to sign: finish or void them first.")
    ),
    "invalid_count": Refusal(
        _("This count is not valid: whole chips of the casino's set only."),
        _(
            "%(amount_minor)s is not a whole number of chips of %(chip_minor)s: enter the amount "
            "in these chips, not how many there are."
        ),
    ),
    "invalid_settings": Refusal(_("These settings are not valid.")),
    "investigation_already_resolved": Refusal(_("This investigation is resolved already.")),
    "investigation_unresolved": Refusal(
        _("The variance found at the last opening waits for its resolution note.")
    ),
    "same_person_signed_twice": Refusal(_("Two people sign: the same person cannot sign twice.")),
    "signature_not_needed": Refusal(_("This signature is not needed.")),
    "slip_in_flight": Refusal(
        _("A fill or credit of this table is not received yet: receive or void it before the closing count.")
    ),
    "slip_not_found": Refusal(_("There is no such slip.")),
    "slip_step_refused": Refusal(_("The slip is not at this step.")),
    "slip_table_closed": Refusal(
        _(
            "The table is closed, or its closing count is taken: no fill or credit moves chips to "
            "or from it until its next opening count is signed."
        ),
        _(
            "%(table)s is closed, or its closing count is taken: no fill or credit moves chips to "
            "or from it until its next opening count is signed."
        ),
    ),
    "table_already_open": Refusal(_("The table is open already.")),
    "table_not_open": Refusal(_("The table is not open.")),
    "wrong_role": Refusal(_("This signature needs another role.")),
    # --- the pit boss's approvals and the dealers' requests
    "four_eyes_required": Refusal(
        _("A second person must decide: whoever asked for it cannot, nor, for a payout, the round's dealer.")
    ),
    "independent_role": Refusal(
        _("An auditor takes no part in what they audit: another person must decide.")
    ),
    "approval_decided": Refusal(_("This is decided already.")),
    "approval_not_found": Refusal(_("There is no such approval.")),
    "approval_pending": Refusal(_("This already waits for a second person.")),
    "payout_not_pending": Refusal(_("This payout does not wait for a decision.")),
    "invalid_request": Refusal(_("There is no such request.")),
    "reason_required": Refusal(_("A reason is required.")),
    # --- the wallet and the cage
    "insufficient_funds": Refusal(
        _("Insufficient funds."),
        _("Insufficient funds: %(available_minor)s available, %(needed_minor)s needed."),
    ),
    "cash_out_confirmation_required": Refusal(
        _("A cash-out of this size is paid only once the cashier has confirmed it."),
        _(
            "A cash-out above %(above_minor)s is paid only once the cashier has confirmed it: check %(amount_minor)s and confirm."
        ),
    ),
    "invalid_amount": Refusal(_("This amount is not valid.")),
    "account_not_found": Refusal(_("There is no such wallet.")),
    "casino_mismatch": Refusal(_("This belongs to another casino.")),
    "currency_mismatch": Refusal(_("This account is in another currency than the casino's.")),
    "same_account": Refusal(_("A player cannot transfer to themselves.")),
    "hold_not_open": Refusal(_("This hold is not open.")),
    "hold_mismatch": Refusal(_("This hold does not belong to this bet.")),
    "transfer_already_reversed": Refusal(_("This transfer is reversed already.")),
    "transfer_not_reversible": Refusal(
        _("This transfer moves payouts awaiting approval; correct it with an adjustment.")
    ),
    # --- audit and background jobs
    "audit_key_missing": Refusal(_("The audit key is missing: nothing can be recorded.")),
    "audit_chain_broken": Refusal(_("The audit chain is broken.")),
    "unknown_job_kind": Refusal(
        _("There is no such kind of job."),
        _("There is no job of the kind “%(kind)s”."),
    ),
    # --- drop, win and hold
    "drop_already_counted": Refusal(
        _("This table's drop box is counted for that shift already: correct that count instead."),
        _(
            "The drop box of %(table)s is counted for shift %(shift)s of %(day)s already: "
            "correct that count instead."
        ),
    ),
    "drop_count_not_found": Refusal(_("There is no such drop count.")),
    "buy_in_not_found": Refusal(_("There is no such buy-in.")),
    "invalid_buy_in": Refusal(_("A buy-in is an amount above zero.")),
    "invalid_shift": Refusal(_("There is no such shift, or it has not begun.")),
    "hold_alert_not_found": Refusal(_("There is no such hold alert.")),
    "hold_alert_already_resolved": Refusal(_("This hold alert is resolved already.")),
    # --- tips to the dealers
    "invalid_tip_amount": Refusal(_("A tip is an amount above zero.")),
    "not_the_tables_dealer": Refusal(_("Only the dealer signed on at this table records its tips.")),
    "tips_round_closed": Refusal(_("The next round has opened: this round takes no more tips.")),
    "tips_already_recorded": Refusal(_("This round's tips are recorded already.")),
    "no_round_to_tip": Refusal(_("This table has no round whose dealer can be tipped.")),
    # --- canasta card-room tables: games, seats, deals and moves
    "canasta_refused": Refusal(_("The card room refused this.")),
    "not_a_canasta_table": Refusal(_("This is not a canasta table.")),
    "canasta_game_in_progress": Refusal(_("A game is open at this table already.")),
    "no_canasta_game": Refusal(_("There is no such canasta game.")),
    "game_not_seating": Refusal(_("Seats change only before the game starts.")),
    "game_not_playing": Refusal(_("The game is not being played.")),
    "game_not_open": Refusal(_("The game is over or voided already.")),
    "no_such_seat": Refusal(_("The game has no such seat."), _("The game has seats 1 to %(seats)s.")),
    "seat_taken": Refusal(_("This seat is taken."), _("Seat %(seat_number)s is taken.")),
    "already_seated": Refusal(_("The player sits at this game already.")),
    "seats_not_filled": Refusal(_("Every seat must be taken before the game starts.")),
    "stake_out_of_range": Refusal(
        _("The stake is outside the table's limits."),
        _("The stake is %(minimum_minor)s to %(maximum_minor)s at this table."),
    ),
    "deal_in_progress": Refusal(_("The deal being played is not scored yet.")),
    "no_deal_in_progress": Refusal(_("No deal is being played.")),
    "wrong_deal_kind": Refusal(_("Deals are not run that way at this table.")),
    "stale_move": Refusal(_("The deal has moved on since you looked: look again.")),
    "invalid_move": Refusal(_("This move is not understood.")),
    # --- requests the terminal API refuses
    "refused": Refusal(_("The command was refused.")),
    "not_found": Refusal(_("Not found.")),
    "conflict": Refusal(_("This conflicts with the current state; look again.")),
    "concurrent_update": Refusal(
        _("Another request changed the same thing at the same moment; send it again.")
    ),
    "idempotency_in_progress": Refusal(
        _("A request with this idempotency key is still being processed; retry in a moment.")
    ),
    "idempotency_key_required": Refusal(_("An idempotency key is required.")),
    "idempotency_key_reused": Refusal(_("This idempotency key was already used for another request.")),
    "invalid_idempotency_key": Refusal(_("This idempotency key is not valid.")),
    "invalid_encoding": Refusal(_("The request body cannot be decoded.")),
    "bad_request": Refusal(_("The request cannot be served.")),
    "request_too_large": Refusal(_("The request body is too large.")),
    "too_many_fields": Refusal(_("The request has too many parameters.")),
    "too_many_files": Refusal(_("The request has too many files.")),
    "unreadable_body": Refusal(_("The request body could not be read.")),
    "no_such_endpoint": Refusal(_("No such endpoint.")),
    "database_unavailable": Refusal(
        _("The database is not answering; send the request again in a few seconds.")
    ),
    "streams_not_served_here": Refusal(
        _("This server does not serve streams; read the state every few seconds instead.")
    ),
}


def _is_english() -> bool:
    return (translation.get_language() or "en").split("-")[0] == "en"


def _shown(value: Any, name: str) -> str:
    """A detail as the sentence shows it: money in the language's form, a moment as its local
    time, a list of messages one after the other."""
    if name.endswith("_minor") and isinstance(value, int) and not isinstance(value, bool):
        return money(value)
    if isinstance(value, dt.datetime):
        return date_format(timezone.localtime(value), "H:i")
    if isinstance(value, (list, tuple)):
        return " ".join(str(item) for item in value)
    return str(value)


def refusal_sentence(code: str) -> str:
    """The sentence of a refusal code in the active language, without the specifics (a code
    recorded without its error: a misscan's reason); an unknown code as it is."""
    refusal = REFUSALS.get(code)
    return str(refusal.text) if refusal is not None else code


def refusal_text(error: ServiceError | GameError) -> str:
    """The refusal's message in the active language: its code's sentence with the specifics when
    the error carries them all (in every language, English too: money in the language's form,
    never as minor units); else, in English, the service's own message, and in the other
    languages the code's sentence without the specifics."""
    refusal = REFUSALS.get(error.code)
    details: Mapping[str, Any] = getattr(error, "details", None) or {}
    if refusal is not None and refusal.detailed is not None and details:
        shown = {name: _shown(value, name) for name, value in details.items()}
        try:
            return str(refusal.detailed) % shown
        except (KeyError, TypeError, ValueError):
            pass  # the error lacks a specific the sentence names: the sentence without them
    if refusal is None or _is_english():
        return error.message
    return str(refusal.text)
