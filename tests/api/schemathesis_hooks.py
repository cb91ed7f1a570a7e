"""Schemathesis hook and check for the CI run (tests/api/schemathesis_run.sh).

The hook: the table, round and bet ids in the paths become those that
tests/api/schemathesis_setup.py prepared (``SCHEMA_TABLE_ID``, ``SCHEMA_ROUND_ID``,
``SCHEMA_BET_ID``), so that fuzzing reaches the table's logic instead of stopping at
``wrong_table`` or ``not_found``.

Only a value that fits the schema (an integer, or its digits as text, which is the same URL) is
replaced: a deliberately invalid one (other text, a float, ``null``) is sent as generated and
must be refused. Fixed values through the config's
``[parameters]`` would also replace those, and the negative-data check would then count the
valid request that results as an invalid one accepted.

The check (``problem_json_on_every_error``, run with ``--checks all``): every error answer is a
problem+json with its status and a stable code."""

from __future__ import annotations

import os
import re
from typing import Any

import schemathesis

PATH_IDS = {"table_id": "SCHEMA_TABLE_ID", "round_id": "SCHEMA_ROUND_ID", "bet_id": "SCHEMA_BET_ID"}


@schemathesis.hook
def before_call(ctx: Any, case: Any, **kwargs: Any) -> None:
    parameters = case.path_parameters or {}
    for name, variable in PATH_IDS.items():
        value = parameters.get(name)
        if name in parameters and _is_integer(value) and variable in os.environ:
            parameters[name] = int(os.environ[variable])


def _is_integer(value: Any) -> bool:
    """An integer, or its decimal digits: a path parameter reaches the URL as text either way
    (the coverage phase sends ``"0"``)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, str) and value.isascii() and value.isdigit())


PROBLEM_CONTENT_TYPE = "application/problem+json"
_CODE = re.compile(r"^[a-z][a-z0-9_]*$")


@schemathesis.check
def problem_json_on_every_error(ctx: Any, response: Any, case: Any) -> bool | None:
    """Every 4xx and 5xx is ``application/problem+json`` with the answer's ``status`` and a stable
    snake_case ``code``, documented status or not (schemathesis's own checks judge the media
    type of documented answers only)."""
    if response.status_code < 400:
        return None
    content_type = (response.headers.get("content-type") or [""])[0]  # lowercase names, lists of values
    if not content_type.startswith(PROBLEM_CONTENT_TYPE):
        raise AssertionError(
            f"{response.status_code} answered as {content_type!r}, not {PROBLEM_CONTENT_TYPE}"
        )
    problem = response.json()
    if (
        not isinstance(problem, dict)
        or problem.get("status") != response.status_code
        or not _CODE.match(str(problem.get("code", "")))
    ):
        raise AssertionError(f"not a problem with its status and a stable code: {problem!r:.300}")
    return True
