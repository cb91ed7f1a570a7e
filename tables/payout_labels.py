"""A payout line's outcome and rule in the reader's language.

The engine names the rule of each payout line in a fixed English text that starts with its
section in the rules (``"7 higher total 1:1"``, ``"8 21+3 flush 5:1"``,
``games/blackjack/settlement.py``). That text is part of the audited record (the line's
digest covers it), so it is stored as the engine wrote it and never translated; screens show it
through ``rule_label``: the clause in words in the active language, with its section
(``"Higher total pays 1:1 (§ 7)"``, a no-break space after the sign). A text this module does
not know is shown as it is.
"""

from __future__ import annotations

import re

from django.utils.functional import Promise
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

# A payout line's outcome in words (the side bets' combinations show as their names).
OUTCOME_LABELS: dict[str, Promise] = {
    "win": pgettext_lazy("payout outcome", "win"),
    "lose": pgettext_lazy("payout outcome", "lose"),
    "push": pgettext_lazy("payout outcome", "push"),
    "blackjack": pgettext_lazy("payout outcome", "blackjack"),
    "bust": pgettext_lazy("payout outcome", "bust"),
    "surrender": pgettext_lazy("payout outcome", "surrender"),
    "refund": pgettext_lazy("payout outcome", "refund"),
    "even_money": pgettext_lazy("payout outcome", "even money"),
    "perfect": pgettext_lazy("payout outcome", "perfect pair"),
    "coloured": pgettext_lazy("payout outcome", "coloured pair"),
    "mixed": pgettext_lazy("payout outcome", "mixed pair"),
    "suited_trips": pgettext_lazy("payout outcome", "suited three of a kind"),
    "straight_flush": pgettext_lazy("payout outcome", "straight flush"),
    "three_of_a_kind": pgettext_lazy("payout outcome", "three of a kind"),
    "straight": pgettext_lazy("payout outcome", "straight"),
    "flush": pgettext_lazy("payout outcome", "flush"),
}


_SECTION = re.compile(r"^(?P<section>\d+(?:\.\d+)?) (?P<clause>.+)$")

# Clauses without a parameter, as the engine writes them after the section.
_CLAUSES: dict[str, Promise] = {
    "bust loses at once": _("Bust: the hand loses at once"),
    "surrender: half the stake": _("Surrender: half the stake is returned"),
    "dealer blackjack": _("Dealer blackjack"),
    "no-peek dealer blackjack": _("Dealer blackjack, no peek"),
    "no-peek dealer blackjack: surrender lost": _("Dealer blackjack, no peek: the surrender is lost"),
    "no-peek dealer blackjack: original stake only": _(
        "Dealer blackjack, no peek: only the original stake is lost"
    ),
    "blackjack vs dealer blackjack: push": _("Blackjack against the dealer's blackjack: push"),
    "dealer bust 1:1": _("Dealer bust pays 1:1"),
    "higher total 1:1": _("Higher total pays 1:1"),
    "equal totals: push": _("Equal totals: push"),
    "lower total": _("Lower total loses"),
    "even money 1:1": _("Even money pays 1:1"),
    "insurance lost": _("Insurance lost: no dealer blackjack"),
    "owner not playing: bet behind returned": _("The box owner does not play: the bet behind is returned"),
}

# Clauses with parameters: the pattern and the words, filled with what it matched.
_BLACKJACK = re.compile(r"^blackjack (?P<ratio>\d+:\d+)$")
_INSURANCE = re.compile(r"^insurance (?P<ratio>\d+:\d+)$")
_SIDE_BET = re.compile(
    r"^(?P<bet>perfect pairs|21\+3)(?:: no combination| (?P<outcome>[a-z ]+) (?P<pays>\d+:1))$"
)
_SIDE_BET_NAMES: dict[str, Promise] = {"perfect pairs": _("Perfect Pairs"), "21+3": _("21+3")}


def rule_label(rule: str) -> str:
    """``rule`` as written by the engine, in words in the active language with its section; the
    text itself when it is not one the engine writes."""
    matched = _SECTION.match(rule)
    if matched is None:
        return rule
    clause = _clause_words(matched["clause"])
    if clause is None:
        return rule
    # A no-break space after the sign, so that a wrapped cell never leaves "(§" alone on a line.
    label = gettext("%(rule)s (§ %(section)s)")  # noqa: RUF001
    return label % {"rule": clause, "section": matched["section"]}


def _clause_words(clause: str) -> str | None:
    fixed = _CLAUSES.get(clause)
    if fixed is not None:
        return str(fixed)
    if found := _BLACKJACK.match(clause):
        return gettext("Blackjack pays %(ratio)s") % {"ratio": found["ratio"]}
    if found := _INSURANCE.match(clause):
        return gettext("Insurance pays %(ratio)s: dealer blackjack") % {"ratio": found["ratio"]}
    if found := _SIDE_BET.match(clause):
        bet = str(_SIDE_BET_NAMES[found["bet"]])
        if found["outcome"] is None:
            return gettext("%(bet)s: no combination") % {"bet": bet}
        outcome = OUTCOME_LABELS.get(found["outcome"].replace(" ", "_"))
        if outcome is None:
            return None
        return gettext("%(bet)s: %(outcome)s pays %(pays)s") % {
            "bet": bet,
            "outcome": outcome,
            "pays": found["pays"],
        }
    return None
