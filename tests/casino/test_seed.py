from __future__ import annotations

from io import StringIO

import pytest
from django.apps import apps
from django.core.management import call_command

from cardroom.models import CanastaTableSettings
from casino.models import AuditRecord, Casino, Player, RuleSet, Table
from games.blackjack.rules import HOME_POLISH, LIVE_AMERICAN, ruleset_from_dict
from tables.models import SideBetPaytable


def _row_counts() -> dict[str, int]:
    return {
        model._meta.label: model.objects.count()
        for model in apps.get_models()
        if model._meta.app_label in {"casino", "tables", "wallet", "auth"}
    }


@pytest.mark.django_db
def test_seed_twice_changes_nothing():
    call_command("seed", stdout=StringIO())
    counts = _row_counts()
    last_audit = AuditRecord.objects.order_by("-sequence").values_list("hash", flat=True).first()

    out = StringIO()
    call_command("seed", stdout=out)

    assert "nothing changed" in out.getvalue()
    assert _row_counts() == counts
    assert AuditRecord.objects.order_by("-sequence").values_list("hash", flat=True).first() == last_audit


@pytest.mark.django_db
def test_seed_loads_the_demo_casino(seeded):
    casino = Casino.objects.get(code="demo")
    tables = {t.name: (t.game, t.rule_set.name) for t in Table.objects.select_related("rule_set")}

    assert casino.currency == "EUR"
    assert tables == {
        "BJ1": ("blackjack", "live-american"),
        "BJ2": ("blackjack", "live-american"),
        "BJ3": ("blackjack", "live-american"),
        "BJ4": ("blackjack", "home-polish"),
        "CA1": ("canasta", "classic4"),
        "CA2": ("canasta", "classic4"),
    }
    assert Player.objects.count() == 5
    assert set(SideBetPaytable.objects.values_list("kind", flat=True)) == {
        "perfect_pairs",
        "twenty_one_plus_three",
    }


@pytest.mark.django_db
def test_the_demo_seeds_one_virtual_and_one_physical_canasta_table(seeded):
    versions = CanastaTableSettings.objects.select_related("table", "rule_set_version__rule_set")

    assert sorted(
        (
            row.table.name,
            row.number,
            row.deal_kind,
            row.fee_kind,
            row.fee_basis_points,
            str(row.rule_set_version),
        )
        for row in versions
    ) == [
        (
            "CA1",
            1,
            "virtual",
            "none",
            0,
            str(RuleSet.objects.get(game="canasta", name="classic4").current_version()),
        ),
        (
            "CA2",
            1,
            "physical",
            "pot_share",
            250,
            str(RuleSet.objects.get(game="canasta", name="classic4").current_version()),
        ),
    ]
    assert {row.approval_id for row in versions} == {None}  # the system's: nobody to ask on a fresh install


@pytest.mark.django_db
def test_seeded_blackjack_profiles_are_exactly_the_engine_profiles(seeded):
    for profile in (LIVE_AMERICAN, HOME_POLISH):
        version = RuleSet.objects.get(game="blackjack", name=profile.name).current_version()
        assert ruleset_from_dict({**version.options, "name": profile.name}) == profile


@pytest.mark.django_db
def test_seed_loads_every_canasta_preset(seeded):
    names = set(RuleSet.objects.filter(game="canasta").values_list("name", flat=True))
    assert names == {
        "classic4", "pl4", "ru4", "kurnik2", "classic2", "pl2", "ru2",
        "classic3", "pl3", "ru3", "ru6", "pl3deck", "samba",
    }  # fmt: skip
