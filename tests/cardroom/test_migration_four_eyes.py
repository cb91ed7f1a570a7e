"""The migration that brings canasta under the venue's four eyes keeps history: every void
request made before gets its approval, pending or decided as it was (the decisions' own table
goes), and every configuration version its rule set version; a canasta table whose rule set came
from a blackjack configuration version keeps playing it."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("tables", "0009_canasta_games"), ("casino", "0013_approval")]
AFTER = [("tables", "0012_canasta_four_eyes_done")]
# 2026-03-02 05:30 in Budapest: before the gaming day's 06:00 start, so the day before.
ASKED = dt.datetime(2026, 3, 2, 4, 30, tzinfo=dt.UTC)


def migrated(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state(targets).apps


def test_void_requests_get_their_approvals_and_settings_their_rule_set_versions() -> None:
    # Given: the schema before, two canasta tables (CA1 with an old settings version, CA2 whose
    # rule set came from a blackjack configuration version) and three void requests of their games
    apps = migrated(BEFORE)
    user = apps.get_model("auth", "User")
    host = user.objects.create(username="host")
    boss = user.objects.create(username="boss")
    casino = apps.get_model("casino", "Casino").objects.create(
        code="m", name="M", currency="EUR", time_zone="Europe/Budapest", gaming_day_starts_at=dt.time(6)
    )
    pit = apps.get_model("casino", "Pit").objects.create(casino=casino, name="P")
    rule_set = apps.get_model("tables", "RuleSet").objects.create(game="canasta", name="classic4")
    pl4 = apps.get_model("tables", "RuleSet").objects.create(game="canasta", name="pl4")
    versions = apps.get_model("tables", "RuleSetVersion")
    classic4_v1 = versions.objects.create(rule_set=rule_set, number=1, options={}, approved_at=ASKED)
    pl4_v1 = versions.objects.create(rule_set=pl4, number=1, options={}, approved_at=ASKED)
    tables = apps.get_model("tables", "Table")
    ca1 = tables.objects.create(casino=casino, pit=pit, name="CA1", game="canasta", rule_set=rule_set)
    ca2 = tables.objects.create(casino=casino, pit=pit, name="CA2", game="canasta", rule_set=rule_set)
    apps.get_model("tables", "TableConfigVersion").objects.create(
        table=ca2,
        number=1,
        rule_set_version=pl4_v1,
        approved_at=ASKED,
        **dict.fromkeys(
            (
                "main_min_minor",
                "main_max_minor",
                "perfect_pairs_min_minor",
                "perfect_pairs_max_minor",
                "twenty_one_plus_three_min_minor",
                "twenty_one_plus_three_max_minor",
                "behind_min_minor",
                "behind_max_minor",
            ),
            100,
        ),
    )
    old_settings = apps.get_model("tables", "CanastaTableSettings").objects.create(
        table=ca1, number=1, deal_kind="physical", fee_kind="per_deal", fee_minor=250, created_by=host
    )
    games = apps.get_model("tables", "CanastaGame")

    def game(table: Any, number: int, status: str) -> Any:
        return games.objects.create(
            table=table,
            number=number,
            status=status,
            rule_set_version=classic4_v1,
            preset="classic4",
            players=4,
            deal_kind="virtual",
            stake_minor=100,
            stake_points=100,
            max_loss_points=10_000,
            hold_minor=10_000,
            fee_kind="none",
            opened_at=ASKED,
        )

    voided, playing, seating = game(ca1, 1, "voided"), game(ca1, 2, "playing"), game(ca2, 1, "seating")
    requests = apps.get_model("tables", "CanastaVoidRequest")
    decisions = apps.get_model("tables", "CanastaVoidDecision")

    def asked(of: Any, reason: str) -> Any:
        return requests.objects.create(
            game=of, reason=reason, requested_by=host, requested_by_name="host", requested_at=ASKED
        )

    approved = asked(voided, "players left")
    decisions.objects.create(
        request=approved, status="approved", decided_by=boss, decided_at=ASKED + dt.timedelta(minutes=5)
    )
    rejected = asked(playing, "abandoned")
    decisions.objects.create(
        request=rejected,
        status="rejected",
        decided_by=boss,
        decided_at=ASKED + dt.timedelta(minutes=7),
        reason="they came back",
    )
    waiting = asked(seating, "nobody came")

    # When: the migrations run
    apps = migrated(AFTER)

    # Then: each request has its approval, decided as it was
    requests = apps.get_model("tables", "CanastaVoidRequest")
    rows = {
        request.pk: request.approval for request in requests.objects.select_related("approval").order_by("pk")
    }
    fields = ("kind", "subject_type", "subject_id", "place", "status", "requested_by_id", "decided_by_id")
    assert [
        tuple(getattr(rows[row.pk], name) for name in fields) for row in (approved, rejected, waiting)
    ] == [
        ("canasta_void", "tables.canastagame", str(voided.pk), "CA1", "approved", host.pk, boss.pk),
        ("canasta_void", "tables.canastagame", str(playing.pk), "CA1", "rejected", host.pk, boss.pk),
        ("canasta_void", "tables.canastagame", str(seating.pk), "CA2", "pending", host.pk, None),
    ]
    assert (rows[rejected.pk].decision_reason, rows[rejected.pk].decided_at) == (
        "they came back",
        ASKED + dt.timedelta(minutes=7),
    )
    assert (rows[approved.pk].request_reason, rows[approved.pk].requested_at) == ("players left", ASKED)
    assert {approval.gaming_day for approval in rows.values()} == {dt.date(2026, 3, 1)}
    assert rows[approved.pk].summary == "Void canasta game 1 at CA1"
    assert "tables_canastavoiddecision" not in connection.introspection.table_names()
    # the configuration: CA1's old version names the rule set version its games were opened
    # with; CA2 has a first version with the one its blackjack configuration named
    settings = apps.get_model("tables", "CanastaTableSettings")
    assert list(
        settings.objects.order_by("table__name").values_list(
            "table__name", "number", "rule_set_version", "deal_kind", "fee_minor", "approval"
        )
    ) == [("CA1", 1, classic4_v1.pk, "physical", 250, None), ("CA2", 1, pl4_v1.pk, "virtual", 0, None)]
    assert settings.objects.get(pk=old_settings.pk).created_by_id == host.pk
