"""The operator's forms: what an operator types for a table's configuration, a rule set's new
version and a paytable's new version, checked as types and turned into the services' arguments.
Whether a configuration is allowed is the services' (and the engine's) to say, not the forms'.
Amounts are typed in major units (``5000`` or ``5000.50``) into ``casino.money.MoneyField``."""

from __future__ import annotations

import copy
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from casino.models import Game, Pit, RuleSet, RuleSetVersion
from casino.money import MoneyField
from games.blackjack.rules import DoubleOn, HoleCard, InsuranceStake, NoPeekLoss, SplitBy, Surrender
from tables.models import SideBetPaytable, SideBetPaytableVersion, TableConfigVersion
from tables.rule_set_texts import BLACKJACK_OPTION_LABELS, OPTION_VALUE_LABELS, OUTCOME_LABELS
from tables.services.config import SHOE_KINDS

LIMIT_LABELS = {
    "main_min_minor": _("Main bet, minimum"),
    "main_max_minor": _("Main bet, maximum"),
    "perfect_pairs_min_minor": _("Perfect Pairs, minimum"),
    "perfect_pairs_max_minor": _("Perfect Pairs, maximum"),
    "twenty_one_plus_three_min_minor": _("21+3, minimum"),
    "twenty_one_plus_three_max_minor": _("21+3, maximum"),
    "behind_min_minor": _("Bet behind, minimum"),
    "behind_max_minor": _("Bet behind, maximum"),
}
SETTING_LABELS = {
    "boxes": _("Boxes in play"),
    "boxes_per_player": _("Boxes per player"),
    "shuffle_every_rounds": _("Shuffle every N rounds"),
    "decision_seconds": _("Seconds for a decision"),
    "betting_seconds": _("Seconds for betting"),
    "bets_behind_allowed": _("Bets behind allowed"),
    "payout_approval_threshold_minor": _("Payouts whose winnings exceed this wait for a pit boss"),
    "shoe_kind": _("Shoe"),
    "dealer_records_decisions": _("The dealer enters the players' decisions"),
}
VERSION_LABELS = {
    "rule_set_version": _("Rule set"),
    "perfect_pairs_version": _("Perfect Pairs paytable"),
    "twenty_one_plus_three_version": _("21+3 paytable"),
}
SHOE_LABELS = {"virtual": _("Virtual (dealt by the server)"), "physical": _("Physical (cards entered)")}
OUTCOMES = {
    SideBetPaytable.Kind.PERFECT_PAIRS: ("perfect", "coloured", "mixed"),
    SideBetPaytable.Kind.TWENTY_ONE_PLUS_THREE: (
        "suited_trips",
        "straight_flush",
        "three_of_a_kind",
        "straight",
        "flush",
    ),
}


class VersionChoiceField(forms.ModelChoiceField):  # type: ignore[type-arg]  # not generic at run time
    def label_from_instance(self, obj: Any) -> str:
        return f"{obj.rule_set.name if isinstance(obj, RuleSetVersion) else obj.paytable.name} v{obj.number}"


def _approved_paytables(kind: str) -> Any:
    return (
        SideBetPaytableVersion.objects.filter(paytable__kind=kind, approved_at__isnull=False)
        .select_related("paytable")
        .order_by("paytable__name", "number")
    )


class TableConfigForm(forms.Form):
    """Every field of a table's configuration, from its current version."""

    rule_set_version = VersionChoiceField(
        label=VERSION_LABELS["rule_set_version"],
        widget=forms.Select(attrs={"class": "edge-choice"}),
        queryset=RuleSetVersion.objects.filter(rule_set__game=Game.BLACKJACK, approved_at__isnull=False)
        .select_related("rule_set")
        .order_by("rule_set__name", "number"),
    )
    perfect_pairs_version = VersionChoiceField(
        label=VERSION_LABELS["perfect_pairs_version"],
        widget=forms.Select(attrs={"class": "edge-choice"}),
        queryset=_approved_paytables(SideBetPaytable.Kind.PERFECT_PAIRS),
        required=False,
        empty_label=_("Not offered"),
    )
    twenty_one_plus_three_version = VersionChoiceField(
        label=VERSION_LABELS["twenty_one_plus_three_version"],
        widget=forms.Select(attrs={"class": "edge-choice"}),
        queryset=_approved_paytables(SideBetPaytable.Kind.TWENTY_ONE_PLUS_THREE),
        required=False,
        empty_label=_("Not offered"),
    )
    main_min_minor = MoneyField(label=LIMIT_LABELS["main_min_minor"])
    main_max_minor = MoneyField(label=LIMIT_LABELS["main_max_minor"])
    perfect_pairs_min_minor = MoneyField(label=LIMIT_LABELS["perfect_pairs_min_minor"])
    perfect_pairs_max_minor = MoneyField(label=LIMIT_LABELS["perfect_pairs_max_minor"])
    twenty_one_plus_three_min_minor = MoneyField(label=LIMIT_LABELS["twenty_one_plus_three_min_minor"])
    twenty_one_plus_three_max_minor = MoneyField(label=LIMIT_LABELS["twenty_one_plus_three_max_minor"])
    behind_min_minor = MoneyField(label=LIMIT_LABELS["behind_min_minor"])
    behind_max_minor = MoneyField(label=LIMIT_LABELS["behind_max_minor"])
    boxes = forms.IntegerField(label=SETTING_LABELS["boxes"])
    boxes_per_player = forms.IntegerField(label=SETTING_LABELS["boxes_per_player"])
    shuffle_every_rounds = forms.IntegerField(label=SETTING_LABELS["shuffle_every_rounds"])
    decision_seconds = forms.IntegerField(label=SETTING_LABELS["decision_seconds"])
    betting_seconds = forms.IntegerField(label=SETTING_LABELS["betting_seconds"])
    bets_behind_allowed = forms.BooleanField(label=SETTING_LABELS["bets_behind_allowed"], required=False)
    payout_approval_threshold_minor = MoneyField(
        label=SETTING_LABELS["payout_approval_threshold_minor"], allow_zero=True
    )
    shoe_kind = forms.ChoiceField(
        label=SETTING_LABELS["shoe_kind"], choices=[(kind, SHOE_LABELS[kind]) for kind in SHOE_KINDS]
    )
    dealer_records_decisions = forms.BooleanField(
        label=SETTING_LABELS["dealer_records_decisions"], required=False
    )

    LIMITS = TableConfigVersion.LIMIT_FIELDS
    SETTINGS = TableConfigVersion.SETTING_FIELDS
    VERSIONS = ("rule_set_version", "perfect_pairs_version", "twenty_one_plus_three_version")

    @classmethod
    def initial_from(cls, config: TableConfigVersion) -> dict[str, Any]:
        initial: dict[str, Any] = {name: getattr(config, name) for name in (*cls.LIMITS, *cls.SETTINGS)}
        for name in cls.VERSIONS:
            initial[name] = getattr(config, f"{name}_id")
        return initial

    def changes_from(self, config: TableConfigVersion) -> dict[str, Any]:
        """The cleaned fields whose values differ from ``config``'s."""
        changes: dict[str, Any] = {}
        for name in (*self.LIMITS, *self.SETTINGS):
            if self.cleaned_data[name] != getattr(config, name):
                changes[name] = self.cleaned_data[name]
        for name in self.VERSIONS:
            chosen = self.cleaned_data[name]
            if (chosen.pk if chosen else None) != getattr(config, f"{name}_id"):
                changes[name] = chosen
        return changes


class TableCreateForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=30)
    pit = forms.ModelChoiceField(label=_("Pit"), queryset=Pit.objects.none())
    rule_set = forms.ModelChoiceField(
        label=_("Rule set"), queryset=RuleSet.objects.filter(game=Game.BLACKJACK).order_by("name")
    )

    def __init__(self, *args: Any, casino_id: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        pit_field = self.fields["pit"]
        assert isinstance(pit_field, forms.ModelChoiceField)
        pit_field.queryset = Pit.objects.filter(casino_id=casino_id).order_by("name")


# The blackjack options an operator changes in a new rule-set version, with their fields. The
# engine (ruleset_from_dict) checks the combination; the paytables are the table's, not here.
def _choices(enum: Any) -> list[tuple[str, Any]]:
    return [(member.value, OPTION_VALUE_LABELS.get(member.value, member.value)) for member in enum]


_OPTION = BLACKJACK_OPTION_LABELS
RULE_OPTION_FIELDS: dict[str, forms.Field] = {
    "decks": forms.IntegerField(label=_OPTION["decks"], min_value=1, max_value=8),
    "dealer_hits_soft_17": forms.BooleanField(label=_OPTION["dealer_hits_soft_17"], required=False),
    "hole_card": forms.ChoiceField(label=_OPTION["hole_card"], choices=_choices(HoleCard)),
    "no_peek_loss": forms.ChoiceField(label=_OPTION["no_peek_loss"], choices=_choices(NoPeekLoss)),
    "blackjack_pays": forms.CharField(label=_OPTION["blackjack_pays"], max_length=10),
    "double_on": forms.ChoiceField(label=_OPTION["double_on"], choices=_choices(DoubleOn)),
    "double_after_split": forms.BooleanField(label=_OPTION["double_after_split"], required=False),
    "max_hands": forms.IntegerField(label=_OPTION["max_hands"], min_value=2, max_value=4),
    "resplit_aces": forms.BooleanField(label=_OPTION["resplit_aces"], required=False),
    "split_aces_one_card": forms.BooleanField(label=_OPTION["split_aces_one_card"], required=False),
    "split_by": forms.ChoiceField(label=_OPTION["split_by"], choices=_choices(SplitBy)),
    "insurance": forms.BooleanField(label=_OPTION["insurance"], required=False),
    "insurance_pays": forms.CharField(label=_OPTION["insurance_pays"], max_length=10),
    "insurance_stake": forms.ChoiceField(label=_OPTION["insurance_stake"], choices=_choices(InsuranceStake)),
    "even_money": forms.BooleanField(label=_OPTION["even_money"], required=False),
    "surrender": forms.ChoiceField(label=_OPTION["surrender"], choices=_choices(Surrender)),
}


class RuleSetVersionForm(forms.Form):
    """A new version's options, from a base version's."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name, field in RULE_OPTION_FIELDS.items():
            self.fields[name] = copy.deepcopy(field)
        self.fields["source"] = forms.CharField(label=_("Source or reason"), max_length=200, required=False)

    def options_from(self, base: dict[str, Any], shown: dict[str, Any]) -> dict[str, Any]:
        """``base``'s options with the form's values: an option the base leaves to the engine's
        default (``shown`` holds what the form showed) is written only when it was changed."""
        options = dict(base)
        for name in RULE_OPTION_FIELDS:
            value = self.cleaned_data[name]
            value = value.strip() if isinstance(value, str) else value
            if name in base or value != shown.get(name):
                options[name] = value
        return options


class PaytableVersionForm(forms.Form):
    """X (of X:1) per outcome of the paytable's kind, and the decks the odds are shown for."""

    decks = forms.IntegerField(label=_("Decks (for the odds shown)"), min_value=1, max_value=8, initial=6)

    def __init__(self, *args: Any, kind: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.outcomes = OUTCOMES[SideBetPaytable.Kind(kind)]
        for outcome in self.outcomes:
            self.fields[outcome] = forms.IntegerField(
                label=OUTCOME_LABELS[outcome], min_value=0, max_value=10_000
            )

    def payouts(self) -> dict[str, int]:
        return {outcome: int(self.cleaned_data[outcome]) for outcome in self.outcomes}
