"""Canasta through the venue's four eyes (``casino.Approval``), the data (after 0010's schema):

- A void request is linked to its approval (kind ``canasta_void``): every request made so far
  gets one, pending or decided as it was (who asked, when, why; who decided, when, how, why), so
  history is kept; then the decisions' own table goes, its rows copied into the approvals.
- A canasta table's configuration version names its rule set version (the preset and options a
  game plays, until now the blackjack configuration's or the table's rule set's) and the
  approval it was made with (none for the versions made before, nor for the system's). Every
  version so far gets the rule set version its table's games were opened with; a canasta table
  whose rule set came from a blackjack configuration version and that has no canasta version
  gets one (the defaults with that rule set version), so its next game plays the same preset.
"""

import datetime as dt
from zoneinfo import ZoneInfo

from django.db import migrations

VOID_KIND = "canasta_void"
GAME_SUBJECT = "tables.canastagame"
DEFAULTS = {
    "deal_kind": "virtual",
    "teams": None,
    "stake_points": 100,
    "stake_min_minor": 10,
    "stake_max_minor": 10_000,
    "max_loss_points": 10_000,
    "fee_kind": "none",
    "fee_basis_points": 0,
    "fee_minor": 0,
}


def _gaming_day(casino, moment):
    local = moment.astimezone(ZoneInfo(casino.time_zone))
    if local.time() < casino.gaming_day_starts_at:
        return local.date() - dt.timedelta(days=1)
    return local.date()


def _rule_set_version_id(apps, table):
    """The rule set version the table's games were opened with: its latest approved blackjack
    configuration version's, else its rule set's current (latest approved) version."""
    TableConfigVersion = apps.get_model("tables", "TableConfigVersion")
    RuleSetVersion = apps.get_model("tables", "RuleSetVersion")
    config = (
        TableConfigVersion.objects.filter(table_id=table.pk, approved_at__isnull=False)
        .order_by("-number")
        .first()
    )
    if config is not None:
        return config.rule_set_version_id
    versions = RuleSetVersion.objects.filter(rule_set_id=table.rule_set_id).order_by("-number")
    version = versions.filter(approved_at__isnull=False).first() or versions.first()
    return version.pk if version is not None else None


def forward(apps, schema_editor):
    Approval = apps.get_model("casino", "Approval")
    VoidRequest = apps.get_model("tables", "CanastaVoidRequest")
    VoidDecision = apps.get_model("tables", "CanastaVoidDecision")
    Settings = apps.get_model("tables", "CanastaTableSettings")
    Table = apps.get_model("tables", "Table")
    TableConfigVersion = apps.get_model("tables", "TableConfigVersion")

    decisions = {decision.request_id: decision for decision in VoidDecision.objects.all()}
    waiting = set()
    for request in VoidRequest.objects.select_related("game__table__casino").order_by("pk"):
        game = request.game
        table = game.table
        decision = decisions.get(request.pk)
        fields = {
            "status": "pending",
            "decided_by_id": None,
            "decided_at": None,
            "decision_reason": "",
        }
        if decision is not None:
            fields = {
                "status": decision.status,
                "decided_by_id": decision.decided_by_id,
                "decided_at": decision.decided_at,
                "decision_reason": decision.reason,
            }
        elif game.pk in waiting:
            # Two requests of one game waiting at once (a race the old check let through): one
            # subject waits once, so the later one is kept as set aside, when it was asked.
            fields = {
                "status": "rejected",
                "decided_by_id": None,
                "decided_at": request.requested_at,
                "decision_reason": "an earlier request of this game was waiting",
            }
        else:
            waiting.add(game.pk)
        approval = Approval.objects.create(
            casino_id=table.casino_id,
            kind=VOID_KIND,
            subject_type=GAME_SUBJECT,
            subject_id=str(game.pk),
            place=table.name[:120],
            summary=f"Void canasta game {game.number} at {table.name}"[:300],
            after={"status": "voided"},
            gaming_day=_gaming_day(table.casino, request.requested_at),
            requested_by_id=request.requested_by_id,
            requested_by_name=request.requested_by_name,
            requested_terminal_id=request.terminal_id,
            requested_at=request.requested_at,
            request_reason=request.reason,
            excluded={},
            **fields,
        )
        VoidRequest.objects.filter(pk=request.pk).update(approval_id=approval.pk)

    for row in Settings.objects.filter(rule_set_version__isnull=True).select_related("table"):
        Settings.objects.filter(pk=row.pk).update(rule_set_version_id=_rule_set_version_id(apps, row.table))
    configured = TableConfigVersion.objects.values_list("table_id", flat=True)
    for table in Table.objects.filter(game="canasta", pk__in=configured).exclude(
        pk__in=Settings.objects.values_list("table_id", flat=True)
    ):
        Settings.objects.create(
            table_id=table.pk, number=1, rule_set_version_id=_rule_set_version_id(apps, table), **DEFAULTS
        )


def backward(apps, schema_editor):
    Approval = apps.get_model("casino", "Approval")
    VoidRequest = apps.get_model("tables", "CanastaVoidRequest")
    VoidDecision = apps.get_model("tables", "CanastaVoidDecision")
    linked = VoidRequest.objects.filter(approval__isnull=False).select_related("approval").order_by("pk")
    for request in linked:
        approval = request.approval
        if approval.status != "pending" and approval.decided_by_id is not None:
            VoidDecision.objects.create(
                request_id=request.pk,
                status=approval.status,
                decided_by_id=approval.decided_by_id,
                decided_at=approval.decided_at,
                reason=approval.decision_reason,
            )
    ids = list(linked.values_list("approval_id", flat=True))
    VoidRequest.objects.update(approval=None)
    Approval.objects.filter(pk__in=ids, kind=VOID_KIND).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0013_approval"),
        ("tables", "0010_canasta_four_eyes"),
    ]

    operations = [migrations.RunPython(forward, backward)]
