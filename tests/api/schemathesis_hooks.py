"""Schemathesis hook for the CI run (tests/api/schemathesis_run.sh): the table, round and bet ids
in the paths become those that tests/api/schemathesis_setup.py prepared (``SCHEMA_TABLE_ID``,
``SCHEMA_ROUND_ID``, ``SCHEMA_BET_ID``), so that fuzzing reaches the table's logic instead of
stopping at ``wrong_table`` or ``not_found``.

Only a value that fits the schema (an integer, or its digits as text, which is the same URL) is
replaced: a deliberately invalid one (other text, a float, ``null``) is sent as generated and
must be refused. Fixed values through the config's
``[parameters]`` would also replace those, and the negative-data check would then count the
valid request that results as an invalid one accepted."""

from __future__ import annotations

import os
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
