"""The live tables' pit pages: the round list and a round's audit page under ``/pit/rounds/``
(the dealer console and the pit desk are the floor's: floor.urls)."""

from django.urls import path

from tables.views import rounds

app_name = "tables"

urlpatterns = [
    path("pit/rounds/", rounds.round_list, name="round_list"),
    path("pit/rounds/<int:round_id>/", rounds.round_detail, name="round_detail"),
    path("pit/rounds/<int:round_id>/export/", rounds.round_export_view, name="round_export"),
]
