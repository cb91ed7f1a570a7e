"""URLconf of the API bench's web process: the project's URLs plus one bare endpoint.

``POST /bench/bare/`` runs the same stack as a bet (gunicorn, Django middleware, DRF, the terminal
and player-token authentication, JSON parsing and rendering) and then inserts one row into
``bench_bare``, a table that only the bench database has (bench/api_bets.py creates it). It is
the yardstick the bets are compared with; it never joins the product's own URLs.

``POST /bench/shape/`` is the bare endpoint with a bet's transaction shape and nothing else: the
same insert inside a transaction with as many statements as a bet makes after authenticating
(BEGIN, six statements that read nothing, the insert, COMMIT; ``bet_place`` documents its five).
What it reaches against the bare endpoint is the most any bet with that many statements could
reach, however little Python it ran."""

from __future__ import annotations

from django.db import connection, transaction
from django.urls import path
from rest_framework.request import Request
from rest_framework.response import Response

from casino.api_views import PlayerApiView
from casino.idempotency import idempotency_key
from casino.urls import urlpatterns as project_urlpatterns

BARE_TABLE_SQL = (
    "CREATE TABLE IF NOT EXISTS bench_bare ("
    "id bigserial PRIMARY KEY, terminal_id bigint NOT NULL, player_id bigint NOT NULL, "
    "idempotency_key varchar(100) NOT NULL, stake_minor bigint NOT NULL, "
    "created_at timestamptz NOT NULL DEFAULT now())"
)


class BareInsertView(PlayerApiView):
    """A player's request at a terminal that inserts one row and answers 201."""

    def post(self, request: Request) -> Response:
        key = idempotency_key(request)
        stake = int(request.data.get("stake_minor", 0))
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO bench_bare (terminal_id, player_id, idempotency_key, stake_minor) "
                "VALUES (%s, %s, %s, %s) RETURNING id",
                [self.terminal.pk, self.session.player_id, key, stake],
            )
            (row_id,) = cursor.fetchone()
        return Response({"id": row_id}, status=201)


# What a bet makes besides BEGIN, COMMIT and one insert: the idempotency record, the round's lock,
# the read of the round and box (locking the player), the bets its check reads, the hold, the
# stored response (the bet with its hold link is the insert). The runs in the README before
# 2026-12-02 made 5.
SHAPE_STATEMENTS = 6


class ShapeInsertView(BareInsertView):
    """The bare request inside a transaction of a bet's statement count."""

    def post(self, request: Request) -> Response:
        with transaction.atomic():
            with connection.cursor() as cursor:
                for _ in range(SHAPE_STATEMENTS):
                    cursor.execute("SELECT 1")
                    cursor.fetchone()
            return super().post(request)


urlpatterns = [
    *project_urlpatterns,
    path("bench/bare/", BareInsertView.as_view(), name="bench-bare"),
    path("bench/shape/", ShapeInsertView.as_view(), name="bench-shape"),
]
