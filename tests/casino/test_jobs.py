"""Background jobs (casino.jobs): started and audited, run inline in the tests, in a thread
without a broker, as a Celery task with one; a failing runner leaves a failed job without a
result; a finished job is never run again; every change of a job hinted; the latest succeeded job
with given params; and the auditor's three checks as runners (casino.audit_jobs, wallet.jobs,
tables.jobs), each registered by its app."""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

import pytest
from django.db import transaction

from casino import jobs
from casino.actors import Actor
from casino.audit import audit_verify
from casino.audit_jobs import CHAIN_CHECK, LEDGER_CHECK, ROUND_REPLAY, chain_check
from casino.errors import UnknownJobKindError
from casino.jobs import JOB_RUN_TASK, job_latest, job_run, job_start, register
from casino.models import AuditRecord, BackgroundJob
from casino.tasks import job_run_task
from tables.jobs import round_replay
from tests.factories import staff_user
from tests.hints import hinted_by
from tests.tampering import raw, triggers_off
from wallet.jobs import ledger_check

pytestmark = pytest.mark.django_db

Calls = list[tuple[int, int, str]]


@pytest.fixture
def counting() -> Any:
    """A registered kind ``test.count`` that reports three steps and returns its params doubled."""
    runs: list[dict[str, Any]] = []

    def runner(params: dict[str, Any], progress: jobs.Progress) -> dict[str, Any]:
        runs.append(params)
        for step in range(1, 4):
            progress(step, 3, f"step {step}")
        return {"doubled": params["n"] * 2}

    register("test.count", runner)
    yield runs
    jobs._runners.pop("test.count", None)


@pytest.fixture
def failing() -> Any:
    def runner(params: dict[str, Any], progress: jobs.Progress) -> dict[str, Any]:
        progress(1, 2, "half way")
        raise RuntimeError("the disk is full")

    register("test.fail", runner)
    yield
    jobs._runners.pop("test.fail", None)


def test_a_job_is_started_audited_and_run_inline(counting: Any) -> None:
    auditor = staff_user("auditor", "auditor-jobs")

    job = job_start(kind="test.count", params={"n": 21}, actor=Actor.staff(auditor))

    job.refresh_from_db()
    assert (job.kind, job.params, job.status, job.result, job.error) == (
        "test.count",
        {"n": 21},
        "succeeded",
        {"doubled": 42},
        "",
    )
    assert (job.done, job.total, job.stage, job.created_by) == (3, 3, "step 3", auditor)
    assert job.started_at is not None and job.finished_at is not None
    assert job.created_at <= job.started_at <= job.finished_at
    assert job.is_finished
    record = AuditRecord.objects.get(action="job.started")
    assert (record.actor_name, record.role, record.object_type, record.object_id, record.after) == (
        "auditor-jobs",
        "auditor",
        "casino.backgroundjob",
        str(job.pk),
        {"kind": "test.count", "params": {"n": 21}},
    )
    assert counting == [{"n": 21}]


def test_an_unknown_kind_is_refused_and_records_nothing() -> None:
    with pytest.raises(UnknownJobKindError) as refused:
        job_start(kind="test.nothing", params={}, actor=Actor.automatic("test"))

    assert refused.value.code == "unknown_job_kind"
    assert refused.value.message == "There is no job of the kind “test.nothing”."
    assert BackgroundJob.objects.count() == 0
    assert not AuditRecord.objects.filter(action="job.started").exists()


def test_a_failing_runner_fails_the_job_with_its_error_and_no_result(failing: Any) -> None:
    job = job_start(kind="test.fail", params={}, actor=Actor.automatic("test"))

    assert (job.status, job.result, job.error) == ("failed", None, "RuntimeError: the disk is full")
    assert (job.done, job.total, job.stage) == (1, 2, "half way")
    assert job.finished_at is not None


def test_a_result_that_is_no_json_object_fails_the_job() -> None:
    register("test.set", lambda params, progress: {"ids": {1, 2}})
    register("test.list", lambda params, progress: [1, 2])  # type: ignore[arg-type, return-value]
    try:
        unencodable = job_start(kind="test.set", params={}, actor=Actor.automatic("test"))
        listed = job_start(kind="test.list", params={}, actor=Actor.automatic("test"))
    finally:
        jobs._runners.pop("test.set", None)
        jobs._runners.pop("test.list", None)

    assert (unencodable.status, unencodable.result) == ("failed", None)
    assert unencodable.error == "TypeError: Object of type set is not JSON serializable"
    assert (listed.status, listed.error) == (
        "failed",
        "TypeError: the runner of test.list returned list, not a dict",
    )


def test_a_finished_job_is_not_run_again(counting: Any) -> None:
    job = job_start(kind="test.count", params={"n": 1}, actor=Actor.automatic("test"))
    finished_at = job.finished_at

    again = job_run(job.pk)
    status = job_run_task.delay(job.pk).get()

    assert (again.status, again.result, again.finished_at) == ("succeeded", {"doubled": 2}, finished_at)
    assert status == "succeeded"
    assert counting == [{"n": 1}]


def test_a_running_job_is_not_taken_twice(counting: Any) -> None:
    job = BackgroundJob.objects.create(kind="test.count", params={"n": 1}, status="running")

    assert job_run(job.pk).status == "running"
    assert counting == []


def test_a_job_whose_kind_is_gone_fails() -> None:
    job = BackgroundJob.objects.create(kind="test.gone", params={})

    job = job_run(job.pk)

    assert (job.status, job.error, job.result) == ("failed", "There is no job of the kind “test.gone”.", None)


def test_job_latest_is_the_newest_succeeded_job_with_exactly_these_params(
    counting: Any, failing: Any
) -> None:
    first = job_start(kind="test.count", params={"n": 1}, actor=Actor.automatic("test"))
    second = job_start(kind="test.count", params={"n": 1}, actor=Actor.automatic("test"))
    job_start(kind="test.count", params={"n": 2}, actor=Actor.automatic("test"))
    BackgroundJob.objects.create(kind="test.count", params={"n": 1})  # queued, never run

    assert job_latest(kind="test.count", params={"n": 1}) == second
    assert job_latest(kind="test.count", params={"n": 1}) != first
    assert job_latest(kind="test.count", params={"n": 3}) is None
    job_start(kind="test.fail", params={}, actor=Actor.automatic("test"))
    assert job_latest(kind="test.fail", params={}) is None


@pytest.mark.django_db(transaction=True)
def test_without_a_broker_the_job_runs_in_a_thread_after_the_commit(counting: Any, settings: Any) -> None:
    settings.BACKGROUND_JOBS_INLINE = False
    settings.CELERY_BROKER_URL = ""

    with transaction.atomic():
        job = job_start(kind="test.count", params={"n": 5}, actor=Actor.automatic("test"))
        assert BackgroundJob.objects.get(pk=job.pk).status == "queued"
    deadline = time.monotonic() + 10
    while BackgroundJob.objects.get(pk=job.pk).status != "succeeded" and time.monotonic() < deadline:
        time.sleep(0.05)

    job.refresh_from_db()
    assert (job.status, job.result) == ("succeeded", {"doubled": 10})


@pytest.mark.django_db(transaction=True)
def test_every_change_of_a_job_hints_it_and_a_refused_start_nothing(
    counting: Any, failing: Any, hints_received: Any
) -> None:
    """Running, its progress and its end hint the job's topic (``job_update``): the pages that show
    it re-read it."""
    actor = Actor.staff(staff_user("auditor", "auditor-job-hints"))
    started: list[BackgroundJob] = []

    heard = hinted_by(
        hints_received, lambda: started.append(job_start(kind="test.count", params={"n": 1}, actor=actor))
    )

    assert heard == {f"job:{started[0].pk}"}
    queued = BackgroundJob.objects.create(kind="test.fail", params={})
    assert hinted_by(hints_received, lambda: job_run(queued.pk)) == {f"job:{queued.pk}"}
    assert hinted_by(hints_received, lambda: jobs.job_update(queued.pk, stage="again")) == {
        f"job:{queued.pk}"
    }
    # a finished job is not run again: nothing moved, nothing hinted
    assert hinted_by(hints_received, lambda: job_run(started[0].pk)) == set()

    def unknown() -> None:
        with pytest.raises(UnknownJobKindError):
            job_start(kind="test.nothing", params={}, actor=actor)

    assert hinted_by(hints_received, unknown) == set()


def test_with_a_broker_the_job_is_a_celery_task_queued_on_commit(
    counting: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.BACKGROUND_JOBS_INLINE = False
    settings.CELERY_BROKER_URL = "memory://"

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        job = job_start(kind="test.count", params={"n": 4}, actor=Actor.automatic("test"))
    assert (BackgroundJob.objects.get(pk=job.pk).status, len(callbacks)) == ("queued", 1)
    callbacks[0]()  # the commit: the task is sent (and, CELERY_TASK_ALWAYS_EAGER in the tests, run)

    job.refresh_from_db()
    assert (job.status, job.result) == ("succeeded", {"doubled": 8})


def test_the_job_task_is_sent_by_the_name_celery_knows_it_by() -> None:
    assert job_run_task.name == JOB_RUN_TASK == "casino.tasks.job_run_task"


# ------------------------------------------------------------------------------ the runners


def _calls() -> tuple[Calls, jobs.Progress]:
    calls: Calls = []

    def progress(done: int, total: int, stage: str) -> None:
        calls.append((done, total, stage))

    return calls, progress


def test_the_chain_check_reports_an_intact_chain(seeded: Any) -> None:
    head = AuditRecord.objects.count()
    calls, progress = _calls()

    result = chain_check({}, progress)

    assert result == {
        "is_intact": True,
        "checked": head,
        "broken_sequence": None,
        "reason": "",
        "unkeyed": 0,
        "anchors_checked": 0,
        "anchor_problems": [],
        "last_anchored_sequence": 0,
        "head_sequence": head,
        "unanchored": head,
    }
    assert calls[0] == (0, head, "Checking the audit records")
    assert calls[-1] == (head, head, "Checking the audit records")


def test_audit_verify_reports_its_progress(seeded: Any) -> None:
    head = AuditRecord.objects.count()
    calls: list[tuple[int, int]] = []

    result = audit_verify(progress=lambda done, total: calls.append((done, total)))

    assert result.is_intact
    assert calls == [(0, head), (head, head)]


def test_the_chain_check_names_an_altered_record(seeded: Any) -> None:
    triggers_off()
    raw("UPDATE casino_auditrecord SET actor_name = 'someone else' WHERE sequence = 3", [])

    result = chain_check({}, lambda done, total, stage: None)

    assert (result["is_intact"], result["broken_sequence"], result["reason"], result["checked"]) == (
        False,
        3,
        "content does not match its hash",
        2,
    )


def test_the_ledger_check_reports_a_clean_ledger_and_names_a_forged_transfer(seeded: Any) -> None:
    from wallet.models import Account, AccountKind, Posting, Transfer, TransferKind

    calls, progress = _calls()
    clean = ledger_check({}, progress)
    assert (clean["is_clean"], clean["offender"], clean["forged"]) == (True, "", [])
    assert calls == [(0, 1, "Checking the ledger"), (1, 1, "Checking the ledger")]

    account = Account.objects.filter(kind=AccountKind.PLAYER).order_by("pk").first()
    assert account is not None
    cage = Account.objects.get(casino=account.casino, kind=AccountKind.CAGE)
    transfer = Transfer.objects.create(casino=account.casino, kind=TransferKind.ADJUSTMENT, currency="EUR")
    Posting.objects.create(transfer=transfer, account=cage, amount_minor=-5_000)
    Posting.objects.create(transfer=transfer, account=account, amount_minor=5_000)
    raw("UPDATE wallet_account SET balance_minor = balance_minor - 5000 WHERE id = %s", [cage.pk])
    raw("UPDATE wallet_account SET balance_minor = balance_minor + 5000 WHERE id = %s", [account.pk])

    forged = ledger_check({}, progress)
    assert (forged["is_clean"], forged["offender"]) == (False, "")
    assert forged["forged"] == [
        {
            "transfer_id": transfer.pk,
            "kind": "adjustment",
            "amount_minor": 5_000,
            "reason": "no audit record names it",
        }
    ]


def _settled_round(seeded: Any) -> Any:
    from casino.models import Table
    from tables.models import Round
    from tables.services import Actor, bet_place, box_take, decision_make, round_close_betting, round_open
    from tables.services import round_settle as table_round_settle
    from tests.tables.conftest import at_terminal, funded_player, stack_shoe

    table = Table.objects.get(name="BJ1")
    dealer = staff_user("dealer", "dealer-jobs")
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    player = funded_player(table, 10_000, name="Alice Archer")
    actor = at_terminal(table, player)
    box_take(table=table, box_number=1, actor=actor)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    bet_place(
        round_id=round_.pk, actor=actor, box_number=1, kind="main", stake_minor=1000, idempotency_key="jobs"
    )
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    decision_make(round_id=round_.pk, actor=actor, box_number=1, decision="stand")
    table_round_settle(round_id=round_.pk, actor=Actor.staff(dealer))
    return Round.objects.select_related("table").get(pk=round_.pk)


def test_the_round_replay_names_the_rounds_that_do_not_reproduce(seeded: Any) -> None:
    round_ = _settled_round(seeded)
    assert round_.settled_at is not None
    start = (round_.settled_at - dt.timedelta(minutes=1)).isoformat()
    end = (round_.settled_at + dt.timedelta(minutes=1)).isoformat()
    params = {"casino_id": round_.table.casino_id, "from": start, "to": end}
    calls, progress = _calls()

    equal = round_replay(params, progress)
    assert equal == {"from": start, "to": end, "replayed": 1, "failed": []}
    assert calls == [(0, 1, "Replaying the settled rounds"), (1, 1, "Replaying the settled rounds")]

    triggers_off()
    raw("UPDATE tables_payoutline SET paid_minor = paid_minor + 100000 WHERE round_id = %s", [round_.pk])
    differing = round_replay(params, progress)
    assert differing["replayed"] == 1
    assert [(failed["round_id"], failed["table"], failed["number"]) for failed in differing["failed"]] == [
        (round_.pk, "BJ1", round_.number)
    ]
    assert differing["failed"][0]["differences_count"] == 1
    assert differing["failed"][0]["differences"][0].startswith("line 0: stored ")

    before = round_replay({**params, "to": start}, progress)
    assert (before["replayed"], before["failed"]) == (0, [])


def test_the_round_replay_fails_on_a_range_without_an_offset(seeded: Any) -> None:
    job = job_start(
        kind=ROUND_REPLAY,
        params={"casino_id": 1, "from": "2026-01-01T00:00", "to": ""},
        actor=Actor.automatic("test"),
    )

    assert (job.status, job.result) == ("failed", None)
    assert job.error == "ValueError: from must be an ISO datetime with its offset, not '2026-01-01T00:00'"


def test_the_audit_checks_are_registered() -> None:
    assert {CHAIN_CHECK, LEDGER_CHECK, ROUND_REPLAY} <= jobs.registered_kinds()
