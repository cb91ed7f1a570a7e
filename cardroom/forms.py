"""The operator's form of a canasta table's configuration: what is typed (the preset, physical or
virtual deals, the stake limits in major units, the house fee in percent or per deal or hour),
checked as types and turned into ``canasta_config_change``'s changes. Whether the values make a
game is the service's (and the engine's) to say, not the form's. The labels and how each value is
shown are here too, for the page's pending change and its versions side by side."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.utils.formats import number_format
from django.utils.translation import gettext_lazy as _

from cardroom.models import CanastaDealKind, CanastaFeeKind
from casino.models import Game, RuleSetVersion
from casino.money import MoneyField, money

LABELS = {
    "rule_set_version": _("Rule variant (preset)"),
    "deal_kind": _("Deals"),
    "teams": _("Teams (six players)"),
    "stake_points": _("The stake is agreed per"),
    "stake_min_minor": _("Stake, minimum"),
    "stake_max_minor": _("Stake, maximum"),
    "max_loss_points": _("The most points of difference a player pays for"),
    "fee_kind": _("House fee"),
    "fee_basis_points": _("Share of the pot"),
    "fee_minor": _("Charge per deal or per started hour"),
}
DEAL_KIND_LABELS = {
    CanastaDealKind.VIRTUAL: _("Virtual: the server shuffles, players move at their terminals"),
    CanastaDealKind.PHYSICAL: _("Physical cards: the host enters each finished deal"),
}
FEE_KIND_LABELS = {
    CanastaFeeKind.NONE: _("No fee"),
    CanastaFeeKind.POT_SHARE: _("A share of the pot"),
    CanastaFeeKind.PER_HOUR: _("A charge per started hour"),
    CanastaFeeKind.PER_DEAL: _("A charge per deal"),
}
STAKE_POINTS_LABELS = {1: _("1 point of difference"), 100: _("100 points of difference")}
TEAMS_LABELS = {None: _("by the preset"), 2: _("2 teams of 3"), 3: _("3 teams of 2")}


def value_text(name: str, value: Any) -> str:
    """A configuration value as the page shows it (a rule set version by its id)."""
    if name == "rule_set_version":
        version = RuleSetVersion.objects.select_related("rule_set").filter(pk=value).first()
        return f"{version.rule_set.name} v{version.number}" if version is not None else str(value)
    if name.endswith("_minor") and isinstance(value, int):
        return money(value)
    if name == "fee_basis_points" and isinstance(value, int):
        return f"{number_format(Decimal(value) / 100, decimal_pos=2)} %"
    labels: dict[str, dict[Any, Any]] = {
        "deal_kind": DEAL_KIND_LABELS,
        "fee_kind": FEE_KIND_LABELS,
        "stake_points": STAKE_POINTS_LABELS,
        "teams": TEAMS_LABELS,
    }
    return str(labels.get(name, {}).get(value, value))


class RuleVersionField(forms.ModelChoiceField):  # type: ignore[type-arg]  # not generic at run time
    def label_from_instance(self, obj: Any) -> str:
        return f"{obj.rule_set.name} v{obj.number}"


class CanastaConfigForm(forms.Form):
    """A change of a canasta table's configuration: every field, prefilled with the current
    values; the service gets the fields that differ."""

    rule_set_version = RuleVersionField(
        queryset=RuleSetVersion.objects.none(), label=LABELS["rule_set_version"]
    )
    deal_kind = forms.TypedChoiceField(
        choices=list(DEAL_KIND_LABELS.items()), widget=forms.RadioSelect, label=LABELS["deal_kind"]
    )
    teams = forms.TypedChoiceField(
        choices=[("", TEAMS_LABELS[None]), (2, TEAMS_LABELS[2]), (3, TEAMS_LABELS[3])],
        coerce=int,
        empty_value=None,
        required=False,
        label=LABELS["teams"],
    )
    stake_points = forms.TypedChoiceField(
        choices=list(STAKE_POINTS_LABELS.items()), coerce=int, label=LABELS["stake_points"]
    )
    stake_min_minor = MoneyField(label=LABELS["stake_min_minor"])
    stake_max_minor = MoneyField(label=LABELS["stake_max_minor"])
    max_loss_points = forms.IntegerField(min_value=1, label=LABELS["max_loss_points"])
    fee_kind = forms.TypedChoiceField(choices=list(FEE_KIND_LABELS.items()), label=LABELS["fee_kind"])
    fee_percent = forms.DecimalField(
        min_value=Decimal(0), max_value=Decimal(100), decimal_places=2, label=_("Share of the pot (%)")
    )
    fee_minor = MoneyField(allow_zero=True, label=LABELS["fee_minor"])
    reason = forms.CharField(max_length=300, required=False, label=_("Why (for the second person)"))

    def __init__(self, *args: Any, current: RuleSetVersion, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Each canasta rule set's current version, and the table's own when it is an older one.
        offered = [
            version.pk
            for version in (
                RuleSetVersion.objects.filter(rule_set__game=Game.CANASTA, approved_at__isnull=False)
                .order_by("rule_set__name", "-number")
                .distinct("rule_set__name")
            )
        ]
        field = self.fields["rule_set_version"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = (
            RuleSetVersion.objects.filter(pk__in=[*offered, current.pk])
            .select_related("rule_set")
            .order_by("rule_set__name", "number")
        )

    @staticmethod
    def initial_from(values: dict[str, Any]) -> dict[str, Any]:
        return {
            **{name: value for name, value in values.items() if name != "fee_basis_points"},
            "fee_percent": (Decimal(values["fee_basis_points"]) / 100).quantize(Decimal("0.01")),
        }

    def changes_from(self, values: dict[str, Any]) -> dict[str, Any]:
        """The fields whose cleaned value differs from ``values`` (the current ones), as the
        service takes them (the rule set version by id, the share of the pot in basis points)."""
        data = self.cleaned_data
        typed = {
            "rule_set_version": data["rule_set_version"].pk,
            "deal_kind": data["deal_kind"],
            "teams": data["teams"],
            "stake_points": data["stake_points"],
            "stake_min_minor": data["stake_min_minor"],
            "stake_max_minor": data["stake_max_minor"],
            "max_loss_points": data["max_loss_points"],
            "fee_kind": data["fee_kind"],
            "fee_basis_points": int(data["fee_percent"] * 100),
            "fee_minor": data["fee_minor"],
        }
        return {name: value for name, value in typed.items() if value != values.get(name)}
