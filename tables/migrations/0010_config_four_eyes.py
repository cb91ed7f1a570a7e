"""Configuration changes through the four-eyes capability: every table configuration proposal,
rule-set version and paytable version a person made is linked to its ``casino.Approval``, which
holds who asked, who decided, when and why. The rows made before are given theirs here, pending
and decided alike (nothing is lost: a proposal's decision moves into its approval, and back on
the way down); the versions the system made (seeds) waited for nobody and get none."""

import datetime as dt
from zoneinfo import ZoneInfo

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

VERSION_FIELDS = ("rule_set_version", "perfect_pairs_version", "twenty_one_plus_three_version")
WITHDRAWN = "withdrawn by the requester:"


def _gaming_day(casino, moment):
    # The casino's gaming day of a moment, as the venue decided it when this migration was written
    # (a migration sees frozen models, without their methods).
    local = moment.astimezone(ZoneInfo(casino.time_zone))
    if local.time() < casino.gaming_day_starts_at:
        return local.date() - dt.timedelta(days=1)
    return local.date()


def _approval(
    Approval,
    *,
    casino,
    kind,
    subject_type,
    subject_id,
    place,
    summary,
    before,
    after,
    requested_by,
    requested_at,
    reason,
    status,
    decided_by,
    decided_at,
    decision_reason,
):
    return Approval.objects.create(
        casino=casino,
        kind=kind,
        subject_type=subject_type,
        subject_id=str(subject_id),
        place=place[:120],
        summary=summary[:300],
        before=before,
        after=after,
        gaming_day=_gaming_day(casino, requested_at),
        requested_by=requested_by,
        requested_by_name=requested_by.username if requested_by is not None else "system",
        requested_at=requested_at,
        request_reason=reason[:300],
        excluded={},
        status=status,
        decided_by=decided_by,
        decided_at=decided_at if status != "pending" else None,
        decision_reason=decision_reason[:300],
    )


def _proposals_forward(apps):
    Approval = apps.get_model("casino", "Approval")
    Proposal = apps.get_model("tables", "TableConfigProposal")
    Version = apps.get_model("tables", "TableConfigVersion")
    for proposal in Proposal.objects.select_related("table__casino", "based_on", "created_by", "decided_by"):
        based_on = proposal.based_on
        before = {
            name: getattr(based_on, f"{name}_id" if name in VERSION_FIELDS else name)
            for name in proposal.changes
        }
        decided_by = proposal.decided_by
        reason = proposal.decision_reason
        if decided_by is not None and decided_by.pk == proposal.created_by_id:
            # A proposer's withdrawal of their own change: no second person decided it.
            decided_by, reason = None, f"{WITHDRAWN} {reason}".strip()
        approval = _approval(
            Approval,
            casino=proposal.table.casino,
            kind="table_config",
            subject_type="tables.tableconfigproposal",
            subject_id=proposal.pk,
            place=proposal.table.name,
            summary=f"Configuration of {proposal.table.name}: {', '.join(proposal.changes)}",
            before=before,
            after=proposal.changes,
            requested_by=proposal.created_by,
            requested_at=proposal.created_at,
            reason="",
            status=proposal.status,
            decided_by=decided_by,
            decided_at=proposal.decided_at or proposal.created_at,
            decision_reason=reason,
        )
        Proposal.objects.filter(pk=proposal.pk).update(approval=approval)
        if proposal.version_id is not None:
            Version.objects.filter(pk=proposal.version_id).update(approval=approval)


def _versions_forward(apps, *, model, parent, content, kind, subject_type):
    Approval = apps.get_model("casino", "Approval")
    Casino = apps.get_model("casino", "Casino")
    Version = apps.get_model("tables", model)
    # One venue per installation (casino.selectors.casino_for_user): rule sets and paytables are
    # the venue's, and so are their approvals.
    casino = Casino.objects.order_by("pk").first()
    if casino is None:
        return
    made_by_people = Version.objects.filter(created_by__isnull=False).select_related(parent, "created_by")
    for version in made_by_people.order_by("pk"):
        owner = getattr(version, parent)
        previous = (
            Version.objects.filter(**{parent: owner}, number__lt=version.number, approved_at__isnull=False)
            .order_by("-number")
            .first()
        )
        approved = version.approved_at is not None
        approval = _approval(
            Approval,
            casino=casino,
            kind=kind,
            subject_type=subject_type,
            subject_id=version.pk,
            place=owner.name,
            summary=f"{owner.name} v{version.number}",
            before=getattr(previous, content) if previous is not None else None,
            after=getattr(version, content),
            requested_by=version.created_by,
            requested_at=version.created_at,
            reason=getattr(version, "source", ""),
            status="approved" if approved else "pending",
            decided_by=version.approved_by if approved else None,
            decided_at=version.approved_at,
            decision_reason="",
        )
        Version.objects.filter(pk=version.pk).update(approval=approval)


def forward(apps, schema_editor):
    # Foreign keys checked as each row is written: the constraints added after this step would
    # otherwise meet the rows' deferred checks still pending in the migration's transaction.
    schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    _proposals_forward(apps)
    _versions_forward(
        apps,
        model="RuleSetVersion",
        parent="rule_set",
        content="options",
        kind="rule_set_version",
        subject_type="tables.rulesetversion",
    )
    _versions_forward(
        apps,
        model="SideBetPaytableVersion",
        parent="paytable",
        content="payouts",
        kind="paytable_version",
        subject_type="tables.sidebetpaytableversion",
    )


def backward(apps, schema_editor):
    schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    Approval = apps.get_model("casino", "Approval")
    Proposal = apps.get_model("tables", "TableConfigProposal")
    approval_ids = []
    for proposal in Proposal.objects.filter(approval__isnull=False).select_related("approval"):
        approval = proposal.approval
        decided_by, reason = approval.decided_by_id, approval.decision_reason
        if decided_by is None and approval.status != "pending":
            # Decided by nobody: the proposer's withdrawal, as it was stored.
            decided_by = proposal.created_by_id
            reason = reason.removeprefix(WITHDRAWN).strip()
        Proposal.objects.filter(pk=proposal.pk).update(
            decided_by=decided_by, decided_at=approval.decided_at, decision_reason=reason, approval=None
        )
        approval_ids.append(approval.pk)
    for name in ("TableConfigVersion", "RuleSetVersion", "SideBetPaytableVersion"):
        Version = apps.get_model("tables", name)
        linked = Version.objects.filter(approval__isnull=False)
        approval_ids.extend(linked.values_list("approval_id", flat=True))
        linked.update(approval=None)
    Approval.objects.filter(pk__in=set(approval_ids)).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0013_approval"),
        ("tables", "0009_canasta_games"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="rulesetversion",
            name="approval",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="casino.approval",
            ),
        ),
        migrations.AddField(
            model_name="sidebetpaytableversion",
            name="approval",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="casino.approval",
            ),
        ),
        migrations.AddField(
            model_name="tableconfigproposal",
            name="approval",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="casino.approval",
            ),
        ),
        migrations.AddField(
            model_name="tableconfigversion",
            name="approval",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="casino.approval",
            ),
        ),
        migrations.RunPython(forward, backward),
        migrations.AddConstraint(
            model_name="rulesetversion",
            constraint=models.CheckConstraint(
                condition=models.Q(("approved_by", models.F("created_by")), _negated=True),
                name="ruleset_version_second_person",
            ),
        ),
        migrations.AddConstraint(
            model_name="sidebetpaytableversion",
            constraint=models.CheckConstraint(
                condition=models.Q(("approved_by", models.F("created_by")), _negated=True),
                name="paytable_version_second_person",
            ),
        ),
        migrations.AddConstraint(
            model_name="tableconfigversion",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("approval__isnull", True),
                    models.Q(("approved_by", models.F("created_by")), _negated=True),
                    _connector="OR",
                ),
                name="table_config_version_second_person",
            ),
        ),
        migrations.RemoveField(model_name="tableconfigproposal", name="decided_at"),
        migrations.RemoveField(model_name="tableconfigproposal", name="decided_by"),
        migrations.RemoveField(model_name="tableconfigproposal", name="decision_reason"),
    ]
