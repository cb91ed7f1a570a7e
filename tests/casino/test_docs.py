"""The guides name what exists: every path of the back office a page of ``docs/`` writes (in
backticks, or as a request line of an example) is one of its URLs, and every field of the table
state the terminal API's guide names is a field of the state the API answers."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings
from django.urls import Resolver404, resolve
from rest_framework import serializers

from tables.api.serializers import TableStateSerializer

DOCS = Path(settings.BASE_DIR) / "docs"
# The URL roots of the back office (a doc also names files, such as /srv/anchors).
ROOTS = ("/accounting/", "/api/", "/audit/", "/cage/", "/cardroom/", "/dealer/", "/operator/", "/pit/")
# Paths the guides give as the start of a family of URLs, not as one.
PREFIXES = {"/api/", "/api/v1/tables/1/", "/api/v1/tables/1/canasta/"}
PATH = re.compile(
    r"`(?:(?:GET|POST|PUT|PATCH|DELETE) +)?(/[^`\s]*)`|^(?:GET|POST|PUT|PATCH|DELETE) +(/\S+)", re.M
)


def _documented_paths() -> dict[str, str]:
    """Each path the guides name (placeholders such as ``<table>`` given a value, the query left
    out), with the first page that names it."""
    found: dict[str, str] = {}
    for page in sorted(DOCS.glob("*.md")):
        for match in PATH.finditer(page.read_text()):
            path = re.sub(r"<[^>]+>", "1", (match.group(1) or match.group(2)).split("?")[0])
            if path.startswith(ROOTS) and not path.endswith("...") and path not in PREFIXES:
                found.setdefault(path, page.name)
    return found


def _answers(path: str) -> bool:
    try:
        match = resolve(path)
    except Resolver404:
        return False
    return match.url_name != "api-not-found"


def test_every_path_the_guides_name_is_a_page_or_an_endpoint():
    documented = _documented_paths()

    assert {path: page for path, page in documented.items() if not _answers(path)} == {}
    assert {"/accounting/reports/shift/", "/api/v1/terminal/", "/dealer/tables/1/"} <= set(documented)


def test_a_path_that_is_no_page_is_found_out():
    assert not _answers("/accounting/reports/")
    assert not _answers("/api/v1/no-such-endpoint/")
    assert _answers("/accounting/reports/shift/")


# A field of the table state as the guide names it: `round.card_expected` (a path from the top of
# the state), or `seconds_left` in the table state.
STATE_FIELD = re.compile(
    r"`((?:round|shoe|config|table|boxes)\.[a-z_.]+)`|`([a-z_]+)` in the table state|table state's `([a-z_.]+)`"
)


def _state_fields(serializer: serializers.Serializer, prefix: str = "") -> set[str]:
    """Every field of the state, as dotted paths (``round.turn.decisions``)."""
    paths = set()
    for name, field in serializer.fields.items():
        path = f"{prefix}{name}"
        paths.add(path)
        nested = field.child if isinstance(field, serializers.ListSerializer) else field
        if isinstance(nested, serializers.Serializer):
            paths |= _state_fields(nested, f"{path}.")
    return paths


def test_the_fields_of_the_table_state_the_terminal_guide_names_exist():
    named = {
        next(group for group in match.groups() if group)
        for match in STATE_FIELD.finditer((DOCS / "terminal-api.md").read_text())
    }

    assert named - _state_fields(TableStateSerializer()) == set()
    assert {"round.card_expected", "round.turn.decisions", "shoe.commitment"} <= named
