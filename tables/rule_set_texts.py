"""What a person reads of a rule set, in their language: each option's label, the words for its
values, and the descriptions of the seeded rule sets.

Every option a rule set's version may hold has a label here: the blackjack engine's
(``games.blackjack.rules.RuleSet``) and the canasta presets' parameters
(``seeds/canasta_presets.json``); ``tests/tables/test_rule_set_texts.py`` fails on one without.
A seeded rule set's description is stored in English, as the seed file says it; it is shown
translated when it is one of :data:`SEEDED_DESCRIPTIONS` (the seed file's texts, marked here for
the catalogs; the same test fails when a seed's text is missing), and as it was typed otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext, gettext_noop, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from casino.models import RuleSet
from casino.money import money

BLACKJACK_OPTION_LABELS = {
    "name": _("Name"),
    "decks": _("Decks"),
    "dealer_hits_soft_17": _("The dealer hits soft 17"),
    "hole_card": _("Hole card"),
    "no_peek_loss": _("What a dealer's blackjack takes without a peek"),
    "blackjack_pays": _("Blackjack pays (as 3/2)"),
    "double_on": _("Double on"),
    "double_after_split": _("Double after a split"),
    "max_hands": _("Hands after splits, at most"),
    "resplit_aces": _("Aces may be split again"),
    "split_aces_one_card": _("Split aces take one card"),
    "split_by": _("Pairs split by"),
    "insurance": _("Insurance offered"),
    "insurance_pays": _("Insurance pays (as 2/1)"),
    "insurance_stake": _("Insurance stake"),
    "even_money": _("Even money offered"),
    "surrender": _("Surrender"),
    "boxes": _("Boxes in play"),
    "boxes_per_player": _("Boxes per player"),
    "bet_behind": _("Bets behind allowed"),
    "perfect_pairs": _("Perfect Pairs"),
    "twenty_one_plus_three": _("21+3"),
    "payout_rounding_unit_minor": _("Payouts rounded down to a multiple of"),
}

CANASTA_OPTION_LABELS = {
    "players": _("Players"),
    "sides": _("Sides"),
    "decks": _("Decks"),
    "jokers": _("Jokers"),
    "cards": _("Cards in play"),
    "handSize": _("Cards dealt to each player"),
    "houseDeal": _("House deal: 13 cards each, the dealer 14, no upcard"),
    "upcardReturn": _("The upcard is turned again when it is"),
    "upcardFreezes": _("A wild card or red three turned up freezes the pile"),
    "drawCount": _("Cards drawn from the stock per turn"),
    "redThreeReplace": _("A red three drawn in play is replaced from the stock"),
    "wildRule": _("Wild cards in a meld"),
    "maxWild": _("Wild cards in a meld, at most"),
    "meldsPerRank": _("Melds of one rank per side"),
    "sequences": _("Sequences and sambas allowed"),
    "sambaBonus": _("Samba bonus"),
    "addRequiresOwnMeld": _("Adding to the side's melds needs a meld of one's own first"),
    "openingTable": _("Opening minimums table"),
    "openingBasis": _("Opening minimum looked up by"),
    "openingMinNaturals": _("Natural cards the opening must hold"),
    "openingPileCards": _("Pile cards counted toward the opening"),
    "wildOnTop": _("A wild card on top of the pile"),
    "freezeUntil": _("A frozen pile stays frozen until it is"),
    "takeNaturalPlusWild": _("An open side may take the pile with a natural and a wild card"),
    "takeByAddingTopCard": _("An open side may take the pile by adding its top card to a meld"),
    "noTakeOnCanastaRank": _("No taking the pile with a canasta of its top card's rank"),
    "minPileSize": _("Cards the pile needs to be taken"),
    "oneCardMayTakeOneCardPile": _("A player holding one card may take a one-card pile"),
    "canastasToGoOut": _("Canastas needed to go out"),
    "askPartner": _("A player may ask the partner before going out"),
    "lastCardRule": _("A player who cannot go out"),
    "blackThreeFinalDiscard": _("A last discard after melding black threes"),
    "concealedIfPartnerMelded": _("Going out concealed counts after the partner melded"),
    "goOutTopCardOnly": _("Going out by taking the pile's top card only"),
    "doubleGoOut": _("Double going out"),
    "stockExhausted": _("When the stock runs out"),
    "naturalCanastaBonus": _("Natural canasta bonus"),
    "mixedCanastaBonus": _("Mixed canasta bonus"),
    "gradedMixed": _("Mixed canasta bonus by its wild cards"),
    "gradedMixedBonus": _("Mixed canasta bonus with 1, 2, 3 wild cards"),
    "jokerCanasta": _("Joker canasta allowed"),
    "jokerCanastaBonus": _("Joker canasta bonus"),
    "sevensBonus": _("Extra points per canasta of sevens"),
    "redThreeValue": _("Points per red three"),
    "redThreeFullSetCount": _("Red threes in the cards"),
    "redThreeFullSetBonus": _("All the red threes are worth"),
    "redThreeFullSetMinCanastas": _("Canastas needed for all the red threes to count"),
    "redThreeFullSetShortfall": _("All the red threes without those canastas count"),
    "redThreeRule": _("Red threes count plus"),
    "outBonus": _("Going out bonus"),
    "concealedBonus": _("Going out concealed bonus"),
    "doubleGoOutBonus": _("Double going out bonus"),
    "blackThreeInHand": _("A black three left in hand"),
    "redThreeInHand": _("A red three left in hand"),
    "noCanastaNegative": _("A side without a canasta counts its melds minus"),
    "target": _("The game ends at"),
}

OPTION_VALUE_LABELS = {
    # blackjack
    "peek": _("dealt, peeked under an ace or a ten"),
    "no_peek": _("dealt after the players (no peek)"),
    "all_stakes": _("every stake (doubles and splits too)"),
    "original_stake": _("the original stake only"),
    "half": _("exactly half the main bet"),
    "up_to_half": _("up to half the main bet"),
    "any_two": _("any first two cards"),
    "9_to_11": _("9, 10 or 11"),
    "10_or_11": _("10 or 11"),
    "value": _("equal value (K and Q too)"),
    "rank": _("equal rank only"),
    "off": _("not offered"),
    "late": _("late surrender"),
    # canasta
    "PARTNERS_2V2": _("two partnerships"),
    "INDIVIDUAL": _("everyone for themselves"),
    "TEAMS_2X3_OR_3X2": _("2 teams of 3 or 3 teams of 2"),
    "WILD_RED3": _("a wild card or a red three"),
    "WILD_RED3_BLACK3": _("a wild card, a red three or a black three"),
    "NONE": _("never"),
    "LE": _("no more than the natural cards"),
    "LT": _("fewer than the natural cards"),
    "CUMULATIVE": _("the total before the hand"),
    "PREVIOUS_HAND": _("the previous hand's score"),
    "TOP_ONLY": _("the top card only"),
    "ANY": _("any card of the pile"),
    "FORBIDDEN": _("nobody may take the pile"),
    "BENEATH_PAIR": _("taken with the card beneath it and a natural of that rank"),
    # "A frozen pile stays frozen until it is" ...
    "TAKEN": pgettext_lazy("frozen pile", "taken"),
    "COVERED": pgettext_lazy("frozen pile", "covered"),
    "KEEP_ONE": _("keeps a card after the discard"),
    "SKIP_DISCARD": _("keeps the last card and does not discard"),
    "G9": _("as the rules say (G9)"),
    "NEGATIVE": _("minus their full value"),
    "PER_CARD": _("card by card"),
    "MELD_NEG": _("with a meld, else minus"),
    "CANASTA_NEG": _("with a canasta, else minus"),
    "CANASTA_ZERO": _("with a canasta, else nothing"),
}

# The paytables' outcomes, as a rule set's side-bet options name them.
OUTCOME_LABELS = {
    "perfect": _("Perfect pair"),
    "coloured": _("Coloured pair"),
    "mixed": _("Mixed pair"),
    "suited_trips": _("Suited three of a kind"),
    "straight_flush": _("Straight flush"),
    "three_of_a_kind": _("Three of a kind"),
    "straight": _("Straight"),
    "flush": _("Flush"),
    "none": _("No win"),
}

# The descriptions of the seeded rule sets (seeds/blackjack_rulesets.json "description",
# seeds/canasta_presets.json "label"), as the catalogs translate them.
SEEDED_DESCRIPTIONS = frozenset(
    {
        gettext_noop("Live American blackjack: 7 boxes, peek, side bets and bet behind"),
        gettext_noop("Home variant: no peek, double on 9-11, up to 4 hands"),
        gettext_noop("Classic canasta, 4 players in 2 partnerships (recommended default)"),
        gettext_noop("Polish rules of source 000, 4 players"),
        gettext_noop("Russian rules of source 002 (Gruznov), 4 players"),
        gettext_noop("Two-player rules of source 001 (Kurnik style)"),
        gettext_noop("Classic canasta, 2 players (recommended default)"),
        gettext_noop("Polish rules of source 000, 2 players"),
        gettext_noop("Russian rules of source 002, 2 players"),
        gettext_noop("Classic canasta, 3 players (recommended default)"),
        gettext_noop("Polish rules of source 000, 3 players"),
        gettext_noop("Russian rules of source 002, 3 players"),
        gettext_noop("Russian rules of source 002, 6 players, three decks"),
        gettext_noop("Polish three-deck variant of source 000, 4 players"),
        gettext_noop("Samba of source 002 §14.4, 4 players, three decks"),
    }
)


def options_in_order(game: str, names: Iterable[str]) -> list[str]:
    """Option names in the order a person reads them (the engine's for blackjack, the presets'
    for canasta), whatever order they were stored in; an unknown one last, by name."""
    order = {name: index for index, name in enumerate(_labels(game))}
    return sorted(set(names), key=lambda name: (order.get(name, len(order)), name))


def _labels(game: str) -> dict[str, Any]:
    return CANASTA_OPTION_LABELS if game == "canasta" else BLACKJACK_OPTION_LABELS


def _paytable_lines(value: dict[str, Any]) -> list[str]:
    order = {name: index for index, name in enumerate(OUTCOME_LABELS)}
    outcomes = sorted(value, key=lambda name: (order.get(name, len(order)), name))
    return [f"{OUTCOME_LABELS.get(name, name)} {value[name]}:1" for name in outcomes]


def option_label(game: str, name: str) -> str:
    """An option's label in the active language (the key itself for one no version of the game
    should hold)."""
    label = _labels(game).get(name)
    return str(label) if label is not None else name


def option_value_label(value: str) -> str:
    """The words for an option's value of a choice (``peek``, ``PARTNERS_2V2``)."""
    label = OPTION_VALUE_LABELS.get(value)
    return str(label) if label is not None else value.replace("_", " ")


def option_text(name: str, value: Any) -> str:
    """An option's value as a person reads it: yes or no, amounts as money, a side bet's
    paytable outcome by outcome, a choice in words, a list of numbers."""
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    if value is None:
        return gettext("not offered")
    if isinstance(value, dict):
        return ", ".join(_paytable_lines(value))
    if isinstance(value, list):
        return ", ".join(str(item) for item in value)
    if name.endswith("_minor") and isinstance(value, int):
        return money(value)
    return option_value_label(str(value))


def option_lines(name: str, value: Any) -> list[str]:
    """An option's value as lines: a side bet's paytable one outcome a line (a long cell wraps
    between them), any other value one line (``option_text``)."""
    if isinstance(value, dict):
        return _paytable_lines(value)
    return [option_text(name, value)]


def rule_set_description(rule_set: RuleSet) -> str:
    """The rule set's description in the active language when it is a seeded one, else as
    typed."""
    description = rule_set.description
    return gettext(description) if description in SEEDED_DESCRIPTIONS else description
