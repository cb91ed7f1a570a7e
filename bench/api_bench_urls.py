"""URLconf of the API bench's web process: the project's URLs plus one bare endpoint.

``POST /bench/bare/`` runs the same stack as a bet (gunicorn, Django middleware, DRF, the terminal
and player-token authentication, JSON parsing and rendering) and then inserts one row into
``bench_bare``, a table that only the bench database has (bench/api_bets.py creates it). It is
the yardstick the bets are compared with; it never joins the product's own URLs."""

from __future__ import annotations

from django.db import connection
from django.urls import path
from rest_framework.request import Request
from rest_framework.response import Response

from casino.urls import urlpatterns as project_urlpatterns
from tables.api.idempotency import idempotency_key
from tables.api.views import PlayerApiView

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


urlpatterns = [*project_urlpatterns, path("bench/bare/", BareInsertView.as_view(), name="bench-bare")]
