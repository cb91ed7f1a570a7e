"""Hostile text in every field of every operation of the terminal API, as its own OpenAPI schema
lists them (generated in process, so an operation, parameter or body field is covered the day it
appears): lone surrogates, NUL and other control characters, right-to-left marks, combining
marks, emoji, noncharacters, digits of other scripts, huge strings. Whatever a request carries,
the answer is never a 5xx, and a 4xx is problem+json with a stable code whose text UTF-8 can
encode.

Each value reaches the server as a client would send it: in a JSON body as an escape
(``"\\ud800"``) or as raw UTF-8 bytes (invalid ones for a surrogate), in the path and the query
string as percent-encoded UTF-8, in a header as the Latin-1 text of its UTF-8 bytes (what a WSGI
server hands Django), without the control characters no HTTP server lets into a header.

Three passes: the inputs that once broke the API (``ONCE_BROKEN``), each replayed; for each
operation, every field with every string of ``HOSTILE`` (the rest of the request valid); then
Hypothesis drawing operations and valid requests from the schema, with random Unicode text in
some of their fields (a few dozen examples in the default lane, 200 in the soak lane:
tests/lanes.py). The schemathesis run in CI (``tests/api/schemathesis_run.sh``) covers the schema itself:
types, formats, stateful sequences."""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import pytest
from django.test import Client
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from casino.schema import PROBLEM_CONTENT_TYPE
from tests.api.conftest import ApiClient, Device
from tests.lanes import sized

HOSTILE = [
    "\ud800",  # a lone high surrogate
    "\udfff",  # a lone low surrogate
    "main\udc00",  # one after valid text
    "\x00",  # NUL (PostgreSQL text cannot hold it)
    "main\x00",
    "\x07\x08\x1b[2J\x7f",  # control characters, a terminal escape sequence
    "\r\n\t",
    "\u202emain",  # right-to-left override
    "\u200f1\u200e",  # right-to-left and left-to-right marks
    "\u0301\u0308" * 40,  # combining marks with nothing to combine with
    "ma\u0301in",  # a combining mark inside a valid value
    "\U0001f0a1\U0001f600",  # emoji beyond the BMP (a surrogate pair as a JSON escape)
    "\ufeff",  # a byte order mark
    "\ufffe\uffff",  # noncharacters
    "\uff4d\uff41\uff49\uff4e",  # "main" in fullwidth letters
    "\u0661\u0662",  # Arabic-Indic digits: str.isdigit() says yes, and int() reads them
    "9" * 5000,  # more digits than Python converts to an int
    "x" * 1_000_000,  # huge (the body stays under DATA_UPLOAD_MAX_MEMORY_SIZE)
    "",
]
# The fixed seed database of failures: inputs that once made the API answer a 500, each replayed in
# every lane with the rest of its request valid, and the answer they get since. A lone surrogate
# as a JSON escape in a choice field: the refusal ("... is not a valid choice") repeated it, and the
# renderer could not encode it (UnicodeEncodeError). HOSTILE found it in bet_place and
# decision_make; canasta_move's type, which came later, breaks the same way without the fix
# (1429df7: the parser refuses any lone surrogate in a body, 400 invalid_encoding). With that fix
# taken out, the Hypothesis pass below finds none of them in its 200 derandomized examples: hence
# this list. Add here whatever input breaks the API next, once it is fixed.
ONCE_BROKEN = [
    pytest.param(operation_id, field_name, value, (400, "invalid_encoding"), id=f"{operation_id}-{label}")
    for operation_id, field_name in (
        ("bet_place", "body:kind"),
        ("decision_make", "body:decision"),
        ("canasta_move", "body:type"),
    )
    for label, value in (
        ("high-surrogate", "\ud800"),
        ("low-surrogate", "\udfff"),
        ("surrogate-after-text", "main\udc00"),
    )
]
# Random text from the categories that break things: surrogates, controls, format characters
# (bidi marks, zero-width joiners), combining marks, private use, symbols (emoji), other scripts.
UNICODE_TEXT = st.text(
    st.characters(categories=["Cs", "Cc", "Cf", "Co", "Mn", "Me", "So", "Nd", "Lo", "Zs", "Lu"]),
    max_size=40,
)
# What RFC 9110 lets into a header field value: no control character but horizontal tab.
_HEADER_CONTROLS = re.compile("[\x00-\x08\x0a-\x1f\x7f]")
CODE = re.compile(r"^[a-z][a-z0-9_]*$")
# The operations only a card reader may call; every other one is sent by a player terminal.
READER_OPERATIONS = {"card_enter"}


# ---------------------------------------------------------------- the operations, from the schema


@dataclass(frozen=True)
class Field:
    location: str  # path, query, header or body
    name: str
    schema: dict[str, Any] = field(hash=False, compare=False)
    required: bool = field(hash=False, compare=False)

    def __str__(self) -> str:
        return f"{self.location}:{self.name}"


@dataclass(frozen=True)
class Operation:
    operation_id: str
    method: str
    path: str
    fields: tuple[Field, ...]
    has_body: bool


def _resolved(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    """A property's schema with its ``$ref`` (or drf-spectacular's ``allOf: [$ref]``) inlined."""
    if "$ref" in schema:
        return _resolved(components[schema["$ref"].rsplit("/", 1)[1]], components)
    if len(schema.get("allOf", ())) == 1:
        rest = {key: value for key, value in schema.items() if key != "allOf"}
        return {**_resolved(schema["allOf"][0], components), **rest}
    return schema


def _operations() -> list[Operation]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    schemes = schema["components"]["securitySchemes"]
    operations = []
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            fields = [
                Field(
                    parameter["in"], parameter["name"], parameter["schema"], parameter.get("required", False)
                )
                for parameter in operation.get("parameters", ())
            ]
            # the credentials are fields too: the headers of every security scheme the operation names
            names = {name for requirement in operation.get("security", ()) for name in requirement}
            fields += [
                Field("header", schemes[name]["name"], {"type": "string"}, True) for name in sorted(names)
            ]
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if body is not None:
                body_schema = _resolved(body["schema"], components)
                required = set(body_schema.get("required", ()))
                fields += [
                    Field("body", name, _resolved(property_schema, components), name in required)
                    for name, property_schema in body_schema["properties"].items()
                ]
            operations.append(
                Operation(operation["operationId"], method.upper(), path, tuple(fields), body is not None)
            )
    return operations


OPERATIONS = _operations()


def strategy(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Valid values of a field's schema. A schema of another kind fails here, so that a new field
    of a new type extends this instead of going untested."""
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        return st.integers(schema.get("minimum", 1), schema.get("maximum", 2**31))
    if kind == "string" and schema.get("format") == "date-time":
        return st.datetimes().map(lambda moment: moment.isoformat() + "Z")
    if kind == "string":
        length = (schema.get("minLength", 0), schema.get("maxLength", 100))
        text = st.from_regex(schema["pattern"], fullmatch=True) if "pattern" in schema else st.text()
        return text.filter(lambda value: length[0] <= len(value) <= length[1])
    raise AssertionError(f"no strategy for the schema {schema}: extend strategy()")


_SIMPLEST: dict[str, Any] = {}


def simplest(schema: dict[str, Any]) -> Any:
    """The simplest valid value of a schema (Hypothesis's minimal example: 1, false, the first
    choice, the shortest text matching the pattern)."""
    key = json.dumps(schema, sort_keys=True)
    if key not in _SIMPLEST:
        _SIMPLEST[key] = find(strategy(schema), lambda _: True, settings=settings(database=None))
    return _SIMPLEST[key]


# ---------------------------------------------------------------- sending


@dataclass
class Terminals:
    player: ApiClient
    reader: ApiClient
    path_values: dict[str, Any]
    keys: itertools.count[int] = field(default_factory=itertools.count)

    def credentials(self, operation: Operation) -> dict[str, str]:
        if operation.operation_id in READER_OPERATIONS:
            return self.reader._headers({})
        return self.player._headers({})

    def fixed(self, operation: Operation, item: Field) -> Any | None:
        """What a well-behaved terminal sends whatever the request: the prepared table, round,
        box and bet in the path, its own credentials, a fresh Idempotency-Key; None for a field
        whose value is free."""
        if item.location == "path" and item.name in self.path_values:
            return self.path_values[item.name]
        if item.location == "header" and item.name in self.credentials(operation):
            return self.credentials(operation)[item.name]
        if item.name == "Idempotency-Key":
            return f"fuzz-{next(self.keys)}"
        return None

    def valid(self, operation: Operation, item: Field) -> Any:
        fixed = self.fixed(operation, item)
        return simplest(item.schema) if fixed is None else fixed


def _utf8(value: Any) -> bytes:
    return str(value).encode("utf-8", "surrogatepass")


def _hostile_header(base: Any, value: str) -> str:
    """A hostile header value: after the scheme of a credential (``Terminal <...>``), as a WSGI
    server would decode it."""
    scheme = str(base).split(" ", 1)[0] + " " if " " in str(base) else ""
    return _HEADER_CONTROLS.sub("", scheme + _utf8(value).decode("latin-1"))


def send(
    terminals: Terminals, operation: Operation, values: dict[Field, Any], *, raw_body: bool = False
) -> tuple[Any, str]:
    path = operation.path
    query, headers, body = [], {}, {}
    for item, value in values.items():
        if item.location == "path":
            path = path.replace("{" + item.name + "}", quote(_utf8(value), safe=""))
        elif item.location == "query":
            query.append(f"{quote(item.name)}={quote(_utf8(value), safe='')}")
        elif item.location == "header":
            headers[item.name] = value
        else:
            body[item.name] = value
    url = path + ("?" + "&".join(query) if query else "")
    extra: dict[str, Any] = {}
    if operation.has_body:
        text = json.dumps(body, ensure_ascii=not raw_body)
        extra = {"data": _utf8(text), "content_type": "application/json"}
    sent = f"{operation.method} {url[:200]} {headers!r:.300} {body!r:.300}"
    return Client().generic(operation.method, url, headers=headers, **extra), sent


def assert_answered(response: Any, sent: str) -> None:
    """Never a 5xx but a stream's 503 ``streams_not_served_here`` (the test client is WSGI, which
    holds no stream: the request passed every check; tests/api/test_streams.py serves them); a
    4xx is problem+json, with a stable code, whose text UTF-8 can encode."""
    not_served = response.status_code == 503 and b'"code":"streams_not_served_here"' in response.content
    assert response.status_code < 500 or not_served, (sent, response.content[:300])
    if response.status_code >= 400:
        assert response["Content-Type"] == PROBLEM_CONTENT_TYPE, (sent, response.content[:300])
        problem = json.loads(response.content)
        assert problem["status"] == response.status_code, sent
        assert CODE.match(problem["code"]), (sent, problem["code"])
        # a message may quote the input, but never a character UTF-8 has no form for
        json.dumps(problem, ensure_ascii=False).encode("utf-8")


# ---------------------------------------------------------------- the tests


@pytest.fixture
def terminals(agi: ApiClient, bj1_reader: Device, bj1_round: Any, settings: Any) -> Terminals:
    """Ági at box 1 of BJ1 with a main bet in the round open for bets, BJ1's card reader; no
    throttling, so that every request reaches its view, and no long-poll waits."""
    settings.API_THROTTLE_TERMINAL = settings.API_THROTTLE_PLAYER = settings.API_THROTTLE_SIGN_IN = ""
    settings.API_LONG_POLL_MAX_MILLISECONDS = 0
    table = f"/api/v1/tables/{bj1_round.table_id}"
    assert agi.post(f"{table}/boxes/1/take/").status_code == 200
    bet = agi.post(
        f"{table}/rounds/{bj1_round.pk}/bets/",
        {"box": 1, "kind": "main", "stake_minor": 1000},
        headers={"Idempotency-Key": "fuzz-setup"},
    )
    assert bet.status_code == 201, bet.content
    path_values = {
        "table_id": bj1_round.table_id,
        "round_id": bj1_round.pk,
        "box": 1,
        "bet_id": bet.json()["id"],
    }
    return Terminals(player=agi, reader=ApiClient(bj1_reader), path_values=path_values)


def test_the_schema_lists_every_kind_of_field():
    # the fuzzing below reaches as far as the schema does: it must list bodies, paths, queries, headers
    locations = {item.location for operation in OPERATIONS for item in operation.fields}
    assert locations == {"path", "query", "header", "body"}
    assert len(OPERATIONS) >= 14


@pytest.mark.parametrize(("operation_id", "field_name", "value", "answer"), ONCE_BROKEN)
def test_the_inputs_that_once_broke_the_api_are_answered(terminals, operation_id, field_name, value, answer):
    # given a request valid but for one field, which holds an input that once broke the API
    operation = next(operation for operation in OPERATIONS if operation.operation_id == operation_id)
    item = next(item for item in operation.fields if str(item) == field_name)
    values = {other: terminals.valid(operation, other) for other in operation.fields if other.required}
    values[item] = (
        _hostile_header(terminals.valid(operation, item), value) if item.location == "header" else value
    )

    # when it is sent, then it is answered, with the answer it gets since its fix
    response, sent = send(terminals, operation, values)
    assert_answered(response, sent)
    assert (response.status_code, json.loads(response.content)["code"]) == answer, sent


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda operation: operation.operation_id)
def test_every_hostile_string_in_every_field_is_answered(terminals, operation):
    for item in operation.fields:
        for value in HOSTILE:
            values = {
                other: terminals.valid(operation, other) for other in operation.fields if other.required
            }
            # a header's valid value is the base of its hostile one; any other field's is not needed
            # (and its simplest value can take Hypothesis a minute: canasta_move's melds pattern)
            values[item] = (
                _hostile_header(terminals.valid(operation, item), value)
                if item.location == "header"
                else value
            )
            assert_answered(*send(terminals, operation, values))


@pytest.mark.soak
@settings(
    max_examples=sized(25, 200),
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_random_unicode_in_any_fields_of_any_operation_is_answered(terminals, data):
    operation = data.draw(st.sampled_from(OPERATIONS), label="operation")
    values: dict[Field, Any] = {}
    for item in operation.fields:
        if item.required or data.draw(st.booleans(), label=f"send {item}"):
            fixed = terminals.fixed(operation, item)
            values[item] = data.draw(strategy(item.schema), label=str(item)) if fixed is None else fixed
    for item in data.draw(
        st.lists(st.sampled_from(operation.fields), min_size=1, unique=True), label="hostile"
    ):
        text = data.draw(UNICODE_TEXT, label=f"text for {item}")
        values[item] = _hostile_header(values.get(item, ""), text) if item.location == "header" else text
    raw_body = data.draw(st.booleans(), label="raw UTF-8 body")
    assert_answered(*send(terminals, operation, values, raw_body=raw_body))
