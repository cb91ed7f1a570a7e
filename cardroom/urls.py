"""The card room's pages under ``/cardroom/``: a canasta table's host page and its commands."""

from django.urls import path

from cardroom import views as cardroom

app_name = "cardroom"

urlpatterns = [
    path("tables/<str:table_name>/", cardroom.canasta_table_page, name="table"),
    path("tables/<str:table_name>/live/", cardroom.table_live, name="table_live"),
    path("tables/<str:table_name>/stream/", cardroom.table_stream, name="table_stream"),
    path("tables/<str:table_name>/do/<slug:action>/", cardroom.table_action, name="table_action"),
]
