"""Background jobs: work too long for a request (a check of the whole audit chain, of the ledger,
a replay of a day's rounds), run elsewhere while a page shows its progress.

An app registers a runner per kind (``register``, from its ``AppConfig.ready``): a function of the
job's params and a progress callback, ``progress(done, total, stage)``, that returns the job's
result as a JSON-ready dict. ``job_start`` records the job (audited as ``job.started``) and has
it run:

- with a Celery broker (``CELERY_BROKER_URL``), as ``casino.tasks.job_run_task`` once the
  transaction that recorded it commits (sent by its name: the task module imports this one);
- without one (the embedded server of ``make run``), in a daemon thread of the web process, also
  after the commit;
- with ``BACKGROUND_JOBS_INLINE`` (the tests), at once, before ``job_start`` returns.

``job_run`` runs a queued job and only a queued one, so a task delivered twice runs it once. A
runner that raises leaves the job failed with the error's text and no result. ``job_latest`` is the
newest successful job of a kind with exactly the given params, for pages that reuse a result.

Every change of a job once recorded (running, its progress, its end) is saved by ``job_update``,
which hints the job's topic (``casino.hints.job_topic``): the pages that show the job follow it
on their stream and re-read its progress.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from celery import signature
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from casino.actors import Actor
from casino.errors import ServiceError, UnknownJobKindError
from casino.hints import hint, job_topic
from casino.locking import row_lock
from casino.models import BackgroundJob

logger = logging.getLogger(__name__)

Progress = Callable[[int, int, str], None]
Runner = Callable[[dict[str, Any], Progress], dict[str, Any]]

# Progress is written at most this often (and always at the end of the work): a runner may report
# every record without an UPDATE per record.
PROGRESS_INTERVAL_SECONDS = 0.25
STAGE_LENGTH = BackgroundJob._meta.get_field("stage").max_length or 120
# The Celery task that runs a job (casino/tasks.py).
JOB_RUN_TASK = "casino.tasks.job_run_task"

_runners: dict[str, Runner] = {}


def register(kind: str, runner: Runner) -> None:
    """Make ``kind`` runnable by ``runner``; a second registration of a kind replaces the first."""
    _runners[kind] = runner


def registered_kinds() -> frozenset[str]:
    return frozenset(_runners)


def job_start(*, kind: str, params: dict[str, Any], actor: Actor) -> BackgroundJob:
    """Record a job of ``kind`` with ``params``, audit it as ``job.started`` and have it run (see
    the module's docstring for where). Returns the job as recorded; inline, as it finished.

    Raises UnknownJobKindError (``unknown_job_kind``) for a kind no app registered, and then
    records nothing. Takes no lock beyond the audit chain's.
    """
    if kind not in _runners:
        raise UnknownJobKindError(_("There is no job of the kind “%(kind)s”.") % {"kind": kind}, kind=kind)
    inline = bool(getattr(settings, "BACKGROUND_JOBS_INLINE", False))
    with transaction.atomic():
        job = BackgroundJob.objects.create(kind=kind, params=params, created_by=actor.user)
        actor.audit(
            action="job.started",
            object_type="casino.backgroundjob",
            object_id=job.pk,
            after={"kind": kind, "params": params},
        )
        if not inline:
            transaction.on_commit(lambda: _dispatch(job.pk))
    if inline:
        return job_run(job.pk)
    return job


def _dispatch(job_id: int) -> None:
    if settings.CELERY_BROKER_URL:
        signature(JOB_RUN_TASK, args=(job_id,)).delay()
        return
    threading.Thread(target=_run_in_thread, args=(job_id,), name=f"job-{job_id}", daemon=True).start()


def _run_in_thread(job_id: int) -> None:
    try:
        job_run(job_id)
    finally:
        # The thread's own connection: nothing else closes it when the thread ends.
        connection.close()


def job_update(job_id: int, **fields: Any) -> None:
    """Save ``fields`` of the job ``job_id`` and hint its topic once saved (at once outside a
    transaction), so that the pages following the job re-read it."""
    BackgroundJob.objects.filter(pk=job_id).update(**fields)
    hint(job_topic(job_id))


def _progress_writer(job_id: int) -> Progress:
    last_written = 0.0

    def progress(done: int, total: int, stage: str) -> None:
        nonlocal last_written
        now = time.monotonic()
        if now - last_written < PROGRESS_INTERVAL_SECONDS and done < total:
            return
        last_written = now
        job_update(job_id, done=max(done, 0), total=max(total, 0), stage=stage[:STAGE_LENGTH])

    return progress


def job_run(job_id: int) -> BackgroundJob:
    """Run the job ``job_id`` if it is queued, and return it as it then stands.

    Marks it running (under its row lock, so two workers never both take it), runs its kind's
    runner outside any transaction, then stores the result and marks it succeeded, or, when the
    runner raises (or its kind is no longer registered), marks it failed with the error's text
    and no result. A job that is running or finished is returned untouched: running it twice runs
    it once.
    """
    with transaction.atomic():
        job = row_lock(BackgroundJob.objects.filter(pk=job_id))
        if job is None:
            raise BackgroundJob.DoesNotExist(f"no job {job_id}")
        if job.status != BackgroundJob.Status.QUEUED:
            return job
        job.status = BackgroundJob.Status.RUNNING
        job.started_at = timezone.now()
        job_update(job.pk, status=job.status, started_at=job.started_at)
    runner = _runners.get(job.kind)
    try:
        if runner is None:
            raise UnknownJobKindError(
                _("There is no job of the kind “%(kind)s”.") % {"kind": job.kind}, kind=job.kind
            )
        result = runner(dict(job.params), _progress_writer(job.pk))
        if not isinstance(result, dict):
            raise TypeError(f"the runner of {job.kind} returned {type(result).__name__}, not a dict")
        # A result the column cannot hold fails the job here, not half way through its update.
        json.dumps(result, cls=DjangoJSONEncoder)
    except Exception as error:  # any failure of the work is the job's result, never the caller's
        logger.exception("background job %s (%s) failed", job.pk, job.kind)
        message = error.message if isinstance(error, ServiceError) else f"{type(error).__name__}: {error}"
        job_update(
            job.pk, status=BackgroundJob.Status.FAILED, result=None, error=message, finished_at=timezone.now()
        )
    else:
        job.refresh_from_db(fields=["done", "total"])
        job_update(
            job.pk,
            status=BackgroundJob.Status.SUCCEEDED,
            result=result,
            error="",
            done=max(job.done, job.total),
            finished_at=timezone.now(),
        )
    job.refresh_from_db()
    return job


def job_latest(*, kind: str, params: dict[str, Any]) -> BackgroundJob | None:
    """The newest succeeded job of ``kind`` with exactly ``params``, or None."""
    return (
        BackgroundJob.objects.filter(kind=kind, params=params, status=BackgroundJob.Status.SUCCEEDED)
        .order_by("-finished_at", "-pk")
        .first()
    )
