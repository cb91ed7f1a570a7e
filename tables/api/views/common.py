"""What the terminal API's views share: the box number in the path, the path parameters of a
round, a box and a bet as the schema names them, and a round as the answers show it."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter
from rest_framework.views import APIView

from tables.errors import NoSuchBoxError
from tables.models import BOX_NUMBERS, Round


def path_box(view: APIView) -> int:
    """The box number in the path: 1 to 7, else a 404 ``no_such_box`` problem."""
    raw = str(view.kwargs.get("box", ""))
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 1 or int(raw) not in BOX_NUMBERS:
        raise NoSuchBoxError("No such box: boxes are numbered 1 to 7.")
    return int(raw)


ROUND_PARAMETER = OpenApiParameter(
    "round_id", int, OpenApiParameter.PATH, description="The round (table state `round.id`)."
)
BOX_PARAMETER = OpenApiParameter(
    "box",
    {"type": "integer", "minimum": 1, "maximum": 7},
    OpenApiParameter.PATH,
    description="Box number, 1 to 7 (a box the table does not use is a 404 `no_such_box`).",
)
BET_PARAMETER = OpenApiParameter("bet_id", int, OpenApiParameter.PATH)


def round_data(round_: Round) -> dict[str, Any]:
    return {
        "id": round_.pk,
        "table_id": round_.table_id,
        "number": round_.number,
        "status": round_.status,
        "version": round_.version,
        "decision_deadline_at": round_.decision_deadline_at,
        "awaiting_correction": round_.awaiting_correction is not None,
    }
