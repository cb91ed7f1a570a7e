"""What the operator's pages share: a refusal with its code for a message, the house edge of a
rule-set version and of side-bet paytables as far as it is known (with the stream of the
computations a page shows running), and a configuration change as the pages show it (each field
before and after, whether it makes the change wait, and whether the person may decide it)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _

from casino.errors import ServiceError
from casino.four_eyes import may_decide
from casino.models import Approval, BackgroundJob, RuleSetVersion
from casino.money import money
from tables.forms import LIMIT_LABELS, SETTING_LABELS, SHOE_LABELS, VERSION_LABELS
from tables.models import SideBetPaytableVersion, TableConfigProposal, TableConfigVersion
from tables.odds_jobs import main_game_edge_job, percent, side_bet_edge
from tables.services.config_changes import config_change_waits_for


def refusal_message(error: ServiceError) -> str:
    """A refusal as a message shows it: its words, then its code."""
    return f"{error.message} ({error.code})"


# ------------------------------------------------------------------------------------ the house edge


def main_edge_of(version: RuleSetVersion | None) -> dict[str, Any]:
    """The main game's edge of ``version`` as far as it is known: a finished job's result, a job
    in progress, or nothing yet (the page offers to compute it)."""
    if version is None:
        return {"version": None}
    job = main_game_edge_job(version)
    edge: dict[str, Any] = {
        "version": version,
        "job": job,
        "running": job is not None
        and job.status in (BackgroundJob.Status.QUEUED, BackgroundJob.Status.RUNNING),
        "can_start": job is None or job.status == BackgroundJob.Status.FAILED,
    }
    if job is not None and job.status == BackgroundJob.Status.SUCCEEDED and job.result:
        edge["percent"] = percent(job.result["house_edge"])
    return edge


def edge_stream_url(edges: Iterable[dict[str, Any] | None]) -> str | None:
    """The page's ``stream_url`` for the main-game edges it shows (``main_edge_of``): the stream
    of the computations among them still running (``operator:main_edge_stream``), or None when
    none runs. Starting one reloads the page (``main_edge``), so that its stream carries it."""
    running = [edge["job"].pk for edge in edges if edge is not None and edge.get("running")]
    if not running:
        return None
    return reverse("operator:main_edge_stream") + "?" + urlencode([("job", job_id) for job_id in running])


def side_edge_of(version: SideBetPaytableVersion | None, decks: int) -> dict[str, Any] | None:
    if version is None:
        return None
    edge = side_bet_edge(version.paytable.kind, decks, version.payouts)
    return {
        "version": version,
        "percent": percent(edge.house_edge),
        "hit_percent": percent(edge.hit_frequency),
    }


def _decks(version: RuleSetVersion | None) -> int:
    return int(version.options.get("decks", 6)) if version is not None else 6


def edges_of(
    rule_version: RuleSetVersion | None,
    perfect_pairs: SideBetPaytableVersion | None,
    twenty_one_plus_three: SideBetPaytableVersion | None,
) -> dict[str, Any]:
    decks = _decks(rule_version)
    return {
        "decks": decks,
        "main": main_edge_of(rule_version),
        "perfect_pairs": side_edge_of(perfect_pairs, decks),
        "twenty_one_plus_three": side_edge_of(twenty_one_plus_three, decks),
    }


# ------------------------------------------------------------------------------------ a configuration change


def config_value_text(name: str, value: Any) -> str:
    """A configuration field's value as a person reads it: money in the language's form, yes or
    no, a version by its name, the shoe in words."""
    if name in VERSION_LABELS:
        return str(value) if value is not None else _("not offered")
    if name == "shoe_kind":
        return str(SHOE_LABELS.get(value, value))
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if name.endswith("_minor") and isinstance(value, int):
        return money(value)
    return str(value)


CONFIG_LABELS = {**VERSION_LABELS, **LIMIT_LABELS, **SETTING_LABELS}


def config_change_rows(
    before: dict[str, Any], after: dict[str, Any], waiting: list[str] | tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    """A configuration change as the approval keeps it (the changed fields before and after,
    versions by id), one row per field: its label, the values as a person reads them, and
    whether the field is one that makes the change wait (``waiting``)."""
    ids = {
        value
        for name in VERSION_LABELS
        for value in (before.get(name), after.get(name))
        if isinstance(value, int)
    }
    rule_versions = {v.pk: v for v in RuleSetVersion.objects.select_related("rule_set").filter(pk__in=ids)}
    paytables = {
        v.pk: v for v in SideBetPaytableVersion.objects.select_related("paytable").filter(pk__in=ids)
    }

    def loaded(name: str, value: Any) -> Any:
        if name not in VERSION_LABELS or value is None:
            return value
        return (rule_versions if name == "rule_set_version" else paytables).get(value, value)

    return [
        {
            "name": name,
            "label": CONFIG_LABELS.get(name, name),
            "old": config_value_text(name, loaded(name, before.get(name))),
            "new": config_value_text(name, loaded(name, value)),
            "waits": name in waiting,
        }
        for name, value in after.items()
    ]


def may_decide_now(approval: Approval | None, user: Any) -> bool:
    """Whether ``user`` may decide what waits (``casino.four_eyes.may_decide``), for the buttons."""
    return approval is not None and may_decide(approval=approval, user=user)


def proposal_entry(proposal: TableConfigProposal, user: Any) -> dict[str, Any]:
    """A waiting table change as the pages show it: who asked, when and why, each field before
    and after, the fields that make it wait, and whether ``user`` may decide it."""
    approval = proposal.approval
    before = (approval.before if approval is not None else None) or {}
    after = (approval.after if approval is not None else None) or proposal.changes
    waiting = config_change_waits_for(
        scope="table_config", before=before, after=after, limit_fields=TableConfigVersion.LIMIT_FIELDS
    )
    return {
        "item": proposal,
        "approval": approval,
        "rows": config_change_rows(before, after, waiting),
        "may_decide": may_decide_now(approval, user),
    }
