"""The operator's pages of a canasta table's configuration, under ``/operator/`` beside the live
tables' (tables.operator_urls)."""

from django.urls import path

from cardroom import operator_views

app_name = "canasta_operator"

urlpatterns = [
    path("tables/<str:table_name>/canasta/", operator_views.canasta_table, name="table"),
    path(
        "tables/<str:table_name>/canasta/<int:approval_id>/<slug:decision>/",
        operator_views.canasta_table_decide,
        name="table_decide",
    ),
]
