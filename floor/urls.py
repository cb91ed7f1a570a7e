"""The floor's desks: the dealer console under ``/dealer/tables/<table>/`` and the pit boss's desk
under ``/pit/`` (the floor, the approvals queue and the decisions on it), and the header's count of
what waits (``waiting/``)."""

from django.urls import path

from floor import console, header, pit

app_name = "floor"

urlpatterns = [
    path("dealer/tables/<str:table_name>/", console.console, name="console"),
    path("dealer/tables/<str:table_name>/live/", console.console_live, name="console_live"),
    path("dealer/tables/<str:table_name>/stream/", console.console_stream, name="console_stream"),
    path("dealer/tables/<str:table_name>/recall/", console.recall, name="recall"),
    path("dealer/tables/<str:table_name>/do/<slug:action>/", console.console_action, name="console_action"),
    path("waiting/", header.waiting, name="waiting"),
    path("pit/", pit.floor, name="floor"),
    path("pit/live/", pit.floor_live, name="floor_live"),
    path("pit/stream/", pit.pit_stream, name="pit_stream"),
    path("pit/queue/", pit.queue, name="queue"),
    path("pit/queue/live/", pit.queue_live, name="queue_live"),
    path("pit/rounds/<int:round_id>/payouts/", pit.round_payouts_decide, name="round_payouts_decide"),
    path("pit/requests/<int:request_id>/<slug:decision>/", pit.request_decide, name="request_decide"),
    path(
        "pit/canasta-voids/<int:request_id>/<slug:decision>/",
        pit.canasta_void_decide,
        name="canasta_void_decide",
    ),
]
