"""A dealer's request (void a round, correct a misscan) waits as a four-eyes approval
(``casino.Approval``, kinds ``round_void`` and ``round_correction``, its subject the round): the
request links to it. Every request made before gets its approval here, pending or decided as its
``RoundRequestDecision`` says (who, when, why), so the history reads the same through the
approvals as through the requests. Nothing is removed."""

import datetime as dt
from zoneinfo import ZoneInfo

import django.db.models.deletion
from django.db import migrations, models

KINDS = {"void": "round_void", "correction": "round_correction"}
TABLE = "tables_roundrequest"
TRIGGER = "tables_roundrequest_append_only"


def _gaming_day(casino, moment):
    # As casino.models.Casino.gaming_day said when this migration was written (a migration
    # cannot call a model's methods): the local date, the day before until the day's start.
    local = moment.astimezone(ZoneInfo(casino.time_zone))
    if local.time() < casino.gaming_day_starts_at:
        return local.date() - dt.timedelta(days=1)
    return local.date()


def _summary(request):
    where = f"round {request.round.number} at {request.round.table.name}"
    if request.kind == "void":
        return f"Void {where}"
    card = request.card or "no card (none left the shoe)"
    return f"Correct the misscan of {where} to {card}"


def forward(apps, schema_editor):
    Approval = apps.get_model("casino", "Approval")
    RoundRequest = apps.get_model("tables", "RoundRequest")
    RoundRequestDecision = apps.get_model("tables", "RoundRequestDecision")
    decisions = {decision.request_id: decision for decision in RoundRequestDecision.objects.all()}
    links = []
    for request in (
        RoundRequest.objects.filter(approval__isnull=True)
        .select_related("round__table__casino", "requested_by")
        .order_by("pk")
    ):
        decision = decisions.get(request.pk)
        casino = request.round.table.casino
        approval = Approval.objects.create(
            casino=casino,
            kind=KINDS[request.kind],
            subject_type="tables.round",
            subject_id=str(request.round_id),
            place=request.round.table.name[:120],
            summary=_summary(request)[:300],
            after={"card": request.card or None} if request.kind == "correction" else None,
            before={"misscan": request.misscan} if request.kind == "correction" else None,
            gaming_day=_gaming_day(casino, request.requested_at),
            requested_by_id=request.requested_by_id,
            requested_by_name=request.requested_by.username,
            requested_at=request.requested_at,
            request_reason=request.reason,
            excluded={},
            status=decision.status if decision else "pending",
            decided_by_id=decision.decided_by_id if decision else None,
            decided_at=decision.decided_at if decision else None,
            decision_reason=decision.reason if decision else "",
        )
        links.append((approval.pk, request.pk))
    if not links:
        return
    with schema_editor.connection.cursor() as cursor:
        _with_trigger_off(cursor, lambda: cursor.executemany(f"UPDATE {TABLE} SET approval_id = %s WHERE id = %s", links))


def _with_trigger_off(cursor, write):
    """The request rows are append-only: the new column of the old rows is written with the
    trigger off, within this migration's transaction, as the owner that runs migrations. The
    foreign keys' deferred checks are made at once, as PostgreSQL alters no table with checks
    pending, then deferred again as Django's are."""
    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    cursor.execute(f"ALTER TABLE {TABLE} DISABLE TRIGGER {TRIGGER}")
    write()
    cursor.execute(f"ALTER TABLE {TABLE} ENABLE TRIGGER {TRIGGER}")
    cursor.execute("SET CONSTRAINTS ALL DEFERRED")


def backward(apps, schema_editor):
    # The column goes with the field; the approvals of the requests go with it, as the requests
    # and their decisions still say all they said (a forward run makes them again).
    Approval = apps.get_model("casino", "Approval")
    RoundRequest = apps.get_model("tables", "RoundRequest")
    linked = list(RoundRequest.objects.filter(approval__isnull=False).values_list("approval_id", flat=True))
    if not linked:
        return
    with schema_editor.connection.cursor() as cursor:
        _with_trigger_off(
            cursor, lambda: cursor.execute(f"UPDATE {TABLE} SET approval_id = NULL WHERE approval_id IS NOT NULL")
        )
    Approval.objects.filter(pk__in=linked, kind__in=KINDS.values()).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0013_approval"),
        ("tables", "0009_canasta_games"),
    ]

    operations = [
        migrations.AddField(
            model_name="roundrequest",
            name="approval",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="casino.approval",
            ),
        ),
        migrations.RunPython(forward, backward),
    ]
