"""The table pages: the dealer console under ``/dealer/tables/<table>/`` and the pit boss's desk
under ``/pit/`` (the round audit included)."""

from django.urls import path

from tables.views import dealer, pit, rounds

app_name = "tables"

urlpatterns = [
    path("dealer/tables/<str:table_name>/", dealer.console, name="console"),
    path("dealer/tables/<str:table_name>/live/", dealer.console_live, name="console_live"),
    path("dealer/tables/<str:table_name>/recall/", dealer.recall, name="recall"),
    path("dealer/tables/<str:table_name>/do/<slug:action>/", dealer.console_action, name="console_action"),
    path("pit/", pit.floor, name="floor"),
    path("pit/live/", pit.floor_live, name="floor_live"),
    path("pit/queue/", pit.queue, name="queue"),
    path("pit/queue/live/", pit.queue_live, name="queue_live"),
    path("pit/rounds/<int:round_id>/payouts/", pit.round_payouts_decide, name="round_payouts_decide"),
    path("pit/requests/<int:request_id>/<slug:decision>/", pit.request_decide, name="request_decide"),
    path(
        "pit/canasta-voids/<int:request_id>/<slug:decision>/",
        pit.canasta_void_decide,
        name="canasta_void_decide",
    ),
    path("pit/rounds/", rounds.round_list, name="round_list"),
    path("pit/rounds/<int:round_id>/", rounds.round_detail, name="round_detail"),
    path("pit/rounds/<int:round_id>/export/", rounds.round_export_view, name="round_export"),
]
