"""The accounting office's terminal API routes (a dealer's tips), mounted under ``/api/v1/`` by
casino.api_urls."""

from django.urls import path

from accounting import api

TABLE = "tables/<str:table_id>/"

urlpatterns = [
    path(TABLE + "tips/", api.TipView.as_view(), name="api-tip"),
]
