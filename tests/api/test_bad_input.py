"""Bad input gets problem+json, whatever part of the stack refuses it: the JSON parser (a lone
surrogate, bytes that are no text), Django's own limits (an oversized body, too many fields, a
host it does not serve), the routing (a method an endpoint does not take) and the idempotency
layer (a duplicate still in flight, with ``Retry-After``)."""

from __future__ import annotations

import json
from typing import Any

import psycopg
import pytest
from django.db import connection
from django.http import HttpResponse, HttpResponseServerError
from django.test import Client, RequestFactory

from casino.actors import Actor
from casino.api_middleware import ApiProblemMiddleware
from tables.models import Bet
from tables.services.rounds import round_close_betting
from tests.api.conftest import ApiClient, Device, staff
from tests.snapshots import ledger_snapshot, table_snapshot

PROBLEM = "application/problem+json"


def _state() -> dict[str, Any]:
    return {**ledger_snapshot(), **table_snapshot()}


def _bets_url(round_: Any) -> str:
    return f"/api/v1/tables/{round_.table_id}/rounds/{round_.pk}/bets/"


def _post_raw(client: ApiClient, path: str, body: bytes | str, key: str, **extra: Any) -> Any:
    """A body sent exactly as given (the test client would re-encode a dict)."""
    content_type = extra.pop("content_type", "application/json")
    return client.client.post(
        path, body, content_type=content_type, headers=client._headers({"Idempotency-Key": key}), **extra
    )


def _problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert (response.status_code, response["Content-Type"]) == (status, PROBLEM), response.content[:300]
    problem = response.json()
    assert (problem["status"], problem["code"]) == (status, code)
    return problem


@pytest.fixture
def agi_on_box_1(agi: ApiClient, bj1_round: Any) -> ApiClient:
    assert agi.post(f"/api/v1/tables/{bj1_round.table_id}/boxes/1/take/").status_code == 200
    return agi


# ---------------------------------------------------------------- lone surrogates


def test_a_lone_surrogate_in_a_bets_kind_is_a_400_problem_and_moves_nothing(agi_on_box_1, bj1_round):
    # given a body whose kind is the JSON escape of a lone surrogate (no character: UTF-8 has no form for it)
    before = _state()
    body = '{"box": 1, "kind": "\\ud800", "stake_minor": 1000}'

    # when it is sent as a bet
    answer = _post_raw(agi_on_box_1, _bets_url(bj1_round), body, "surrogate")

    # then it is refused as bad encoding, naming the fault, not repeating the input
    problem = _problem(answer, 400, "invalid_encoding")
    assert "surrogate" in problem["detail"]
    assert all(value.isprintable() for value in problem.values() if isinstance(value, str))
    assert _state() == before
    # and the same bet with a real kind is placed
    placed = _post_raw(agi_on_box_1, _bets_url(bj1_round), body.replace("\\ud800", "main"), "surrogate")
    assert placed.status_code == 201, placed.content
    assert Bet.objects.get().kind == "main"


@pytest.mark.parametrize("escaped", ["\\udfff", "a\\ud83c", "\\udca1\\ud83c"])
def test_any_unpaired_surrogate_anywhere_in_the_body_is_refused(agi_on_box_1, bj1_round, escaped):
    # a low one alone, a high one at the end, a pair in the wrong order; in a key as well as a value
    for body in (
        f'{{"box": 1, "kind": "{escaped}", "stake_minor": 1000}}',
        f'{{"box": 1, "kind": "main", "stake_minor": 1000, "{escaped}": 1}}',
        f'{{"box": 1, "kind": "main", "stake_minor": 1000, "notes": [[{{"a": "{escaped}"}}]]}}',
    ):
        _problem(_post_raw(agi_on_box_1, _bets_url(bj1_round), body, "surrogates"), 400, "invalid_encoding")
    assert not Bet.objects.exists()


def test_a_surrogate_pair_is_a_character_like_any_other(agi_on_box_1, bj1_round):
    # "\ud83c\udca1" is the escape of one character (U+1F0A1, the ace of spades card): valid text,
    # so the kind is refused as no choice, with the input quoted back, and the answer encodes
    answer = _post_raw(
        agi_on_box_1,
        _bets_url(bj1_round),
        '{"box": 1, "kind": "\\ud83c\\udca1", "stake_minor": 1000}',
        "pair",
    )

    problem = _problem(answer, 400, "invalid")
    assert list(problem["errors"]) == ["kind"]
    assert "\U0001f0a1" in problem["errors"]["kind"][0]


def _at_decision(agi: ApiClient, reader: ApiClient, round_: Any) -> None:
    """Ági's main bet on box 1, dealt 10 and 7 against a dealer's 9: her decision is due."""
    bet = agi.post(
        _bets_url(round_),
        {"box": 1, "kind": "main", "stake_minor": 1000},
        headers={"Idempotency-Key": "main"},
    )
    assert bet.status_code == 201, bet.content
    round_close_betting(round_id=round_.pk, actor=Actor.staff(staff("dealer")))
    cards = {("box", 0): "TS", ("dealer", 0): "9C", ("box", 1): "7H", ("dealer", 1): "8D"}
    dealt = {"box": 0, "dealer": 0}
    table = f"/api/v1/tables/{round_.table_id}"
    while (expected := reader.get(f"{table}/state/").json()["round"]["card_expected"]) is not None:
        card = cards[(expected["to"], dealt[expected["to"]])]
        dealt[expected["to"]] += 1
        sent = reader.post(
            f"{table}/rounds/{round_.pk}/cards/", {"card": card}, headers={"Idempotency-Key": f"card-{card}"}
        )
        assert sent.status_code == 200, sent.content
    assert agi.get(f"{table}/state/").json()["round"]["turn"] == {
        "box": 1,
        "hand": 0,
        "decisions": ["hit", "stand", "double"],
    }


def test_a_lone_surrogate_as_a_decision_is_a_400_problem_and_the_hand_waits(
    agi_on_box_1, bj1_reader, bj1_round
):
    # given Ági's decision is due
    _at_decision(agi_on_box_1, ApiClient(bj1_reader), bj1_round)
    decisions = f"/api/v1/tables/{bj1_round.table_id}/rounds/{bj1_round.pk}/decisions/"
    before = _state()

    # when she sends a decision that is a lone surrogate
    answer = _post_raw(agi_on_box_1, decisions, '{"box": 1, "decision": "\\udbff"}', "decide")

    # then it is refused and nothing happened
    _problem(answer, 400, "invalid_encoding")
    assert _state() == before
    # and a real decision is taken
    stood = _post_raw(agi_on_box_1, decisions, '{"box": 1, "decision": "stand"}', "decide")
    assert stood.status_code == 200, stood.content
    assert stood.json()["status"] != "players"


# ---------------------------------------------------------------- bytes that are no text


def test_a_body_that_is_not_utf8_is_a_400_invalid_encoding(agi_on_box_1, bj1_round):
    before = _state()
    body = b'{"box": 1, "kind": "main\xff\xfe", "stake_minor": 1000}'

    answer = _post_raw(agi_on_box_1, _bets_url(bj1_round), body, "bytes")

    assert "byte 24" in _problem(answer, 400, "invalid_encoding")["detail"]
    assert _state() == before
    # a surrogate's own UTF-8-like bytes (ED A0 80) are no UTF-8 either
    answer = _post_raw(
        agi_on_box_1, _bets_url(bj1_round), '{"kind": "\ud800"}'.encode("utf-8", "surrogatepass"), "b2"
    )
    _problem(answer, 400, "invalid_encoding")


def test_a_body_in_the_charset_its_content_type_names_is_read_in_it(agi_on_box_1, bj1_round):
    # é is the byte E9 in Latin-1, no UTF-8: declared, it is text (here in a field the bet ignores)
    text = '{"box": 1, "kind": "main", "stake_minor": 1000, "note": "café"}'

    # (the test client encodes a text body in the charset its content type names)
    placed = _post_raw(
        agi_on_box_1, _bets_url(bj1_round), text, "latin", content_type="application/json; charset=latin-1"
    )
    refused = _post_raw(agi_on_box_1, _bets_url(bj1_round), text.encode("latin-1"), "utf8")

    assert placed.status_code == 201, placed.content
    _problem(refused, 400, "invalid_encoding")
    assert Bet.objects.count() == 1


# ---------------------------------------------------------------- Django's own limits


def test_a_body_over_the_upload_limit_is_a_413_problem(agi_on_box_1, bj1_round, settings):
    # given a 3 MB bet (Django's limit is 2.5 MB)
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE == 2_621_440
    before = _state()
    bet = {"box": 1, "kind": "main", "stake_minor": 1000}
    body = json.dumps({**bet, "padding": "x" * 3_000_000})

    answer = _post_raw(agi_on_box_1, _bets_url(bj1_round), body, "big")

    problem = _problem(answer, 413, "request_too_large")
    assert "2621440 bytes" in problem["detail"]
    assert _state() == before
    # and a bet padded to just under the limit is an ordinary bet
    body = json.dumps({**bet, "padding": "x" * 2_500_000})
    assert _post_raw(agi_on_box_1, _bets_url(bj1_round), body, "big-ok").status_code == 201


def test_too_many_query_fields_is_a_400_problem(agi):
    fields = "&".join(f"f{number}=1" for number in range(1001))

    answer = agi.client.get(f"/api/v1/player/statement/?{fields}", headers=agi._headers({}))

    assert "1000 parameters" in _problem(answer, 400, "too_many_fields")["detail"]
    few = agi.client.get("/api/v1/player/statement/?limit=5&f1=1", headers=agi._headers({}))
    assert few.status_code == 200


def test_a_host_django_does_not_serve_is_a_problem_under_api_only(bj1_terminal: Device):
    # Django refuses it before any view (ALLOWED_HOSTS): under /api/ that is problem+json too
    client = Client()
    api = client.get("/api/v1/terminal/", headers=bj1_terminal.headers(), HTTP_HOST="evil.example")
    page = client.get("/login/", HTTP_HOST="evil.example")

    _problem(api, 400, "bad_request")
    assert (page.status_code, page["Content-Type"]) == (400, "text/html; charset=utf-8")
    assert api["X-Content-Type-Options"] == "nosniff"  # the security headers still reach it


def test_a_bad_host_over_plain_http_with_the_https_redirect_is_a_problem_under_api(settings):
    # given production's HTTPS redirect: SecurityMiddleware reads the Host to build the redirect,
    # and refuses a host Django does not serve itself
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_HSTS_SECONDS = 31_536_000
    client = Client()

    # when a request over plain HTTP names such a host
    api = client.get("/api/v1/terminal/", HTTP_HOST="evil.example")
    page = client.get("/login/", HTTP_HOST="evil.example")

    # then under /api/ it is a problem, with the security headers; elsewhere Django's page stays
    _problem(api, 400, "bad_request")
    assert api["X-Content-Type-Options"] == "nosniff"
    assert api["Referrer-Policy"] == "same-origin"
    assert api["Cross-Origin-Opener-Policy"] == "same-origin"
    assert "Strict-Transport-Security" not in api  # never over plain HTTP
    assert (page.status_code, page["Content-Type"]) == (400, "text/html; charset=utf-8")
    # and a host it serves is still redirected to HTTPS, and over HTTPS gets HSTS on its problem
    redirected = client.get("/api/v1/terminal/")
    assert (redirected.status_code, redirected["Location"]) == (301, "https://testserver/api/v1/terminal/")
    secure = client.get("/api/v1/terminal/", secure=True, HTTP_HOST="evil.example")
    _problem(secure, 400, "bad_request")
    assert secure["Strict-Transport-Security"] == "max-age=31536000"


def test_a_crash_under_api_is_a_500_problem_and_elsewhere_the_page_stays():
    crashed = ApiProblemMiddleware(lambda request: HttpResponseServerError("<h1>Server Error (500)</h1>"))
    request = RequestFactory().get

    api = crashed(request("/api/v1/terminal/"))
    page = crashed(request("/login/"))

    assert (api.status_code, api["Content-Type"]) == (500, PROBLEM)
    assert json.loads(api.content) == {
        "type": "about:blank#internal_server_error",
        "title": "Internal Server Error",
        "status": 500,
        "code": "internal_server_error",
        "detail": "Internal Server Error.",
    }
    assert (page.status_code, page.content) == (500, b"<h1>Server Error (500)</h1>")
    # a success, and a problem already, pass unchanged
    fine = ApiProblemMiddleware(lambda request: HttpResponse("{}", content_type="application/json"))
    assert fine(request("/api/v1/terminal/")).content == b"{}"


# ---------------------------------------------------------------- methods and media types


def test_a_method_an_endpoint_does_not_take_is_a_405_problem_in_json(agi):
    endpoint = agi.client.patch("/api/v1/player/balance/", headers=agi._headers({}))
    schema = agi.client.post("/api/schema/")

    _problem(endpoint, 405, "method_not_allowed")
    # the schema view renders YAML, but its refusals are JSON like every other
    _problem(schema, 405, "method_not_allowed")


def test_an_accept_header_naming_nothing_the_api_renders_is_a_406_problem(agi):
    answer = agi.client.get("/api/v1/player/balance/", headers=agi._headers({"Accept": "text/html"}))

    _problem(answer, 406, "not_acceptable")


# ---------------------------------------------------------------- a duplicate in flight


def _scope(device: Device, player_id: int) -> str:
    return f"api:t{device.terminal.pk}:p{player_id}"


def test_a_duplicate_while_the_first_is_in_flight_is_a_409_problem_with_retry_after(
    agi_on_box_1, bj1_terminal, bj1_round
):
    # given the first request with key "k" still running: its transaction holds the key's lock
    player_id = agi_on_box_1.get("/api/v1/player-sessions/current/").json()["player"]["id"]
    in_flight = psycopg.connect(**connection.get_connection_params())
    body = {"box": 1, "kind": "main", "stake_minor": 1000}
    try:
        in_flight.execute(
            "SELECT pg_advisory_xact_lock(hashtext(%s), hashtext(%s))", [_scope(bj1_terminal, player_id), "k"]
        )
        before = _state()

        # when its duplicate arrives
        duplicate = agi_on_box_1.post(_bets_url(bj1_round), body, headers={"Idempotency-Key": "k"})

        # then it is told at once to retry in a second, and it moved nothing
        _problem(duplicate, 409, "idempotency_in_progress")
        assert duplicate["Retry-After"] == "1"
        assert _state() == before
    finally:
        in_flight.rollback()
        in_flight.close()
    # and once the first is gone, the retry runs
    retried = agi_on_box_1.post(_bets_url(bj1_round), body, headers={"Idempotency-Key": "k"})
    assert retried.status_code == 201, retried.content
    assert "Retry-After" not in retried
    assert Bet.objects.count() == 1


def test_a_409_of_the_tables_state_invites_no_retry(agi_on_box_1, bj1_round):
    round_close_betting(round_id=bj1_round.pk, actor=Actor.staff(staff("dealer")))

    answer = agi_on_box_1.post(
        _bets_url(bj1_round),
        {"box": 1, "kind": "main", "stake_minor": 1000},
        headers={"Idempotency-Key": "late"},
    )

    _problem(answer, 409, "betting_closed")
    assert "Retry-After" not in answer
