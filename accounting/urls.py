"""The pit's accounting pages, under ``/accounting/``."""

from django.urls import path

from accounting import views

app_name = "accounting"

urlpatterns = [
    path("", views.day, name="day"),
    path("day/close/", views.day_close, name="day_close"),
    path("tables/<str:table_name>/", views.table_page, name="table"),
    path("tables/<str:table_name>/counts/", views.count_record, name="count_record"),
    path("tables/<str:table_name>/counts/<int:count_id>/sign/", views.count_sign, name="count_sign"),
    path(
        "tables/<str:table_name>/investigations/<int:investigation_id>/resolve/",
        views.investigation_resolve_view,
        name="investigation_resolve",
    ),
    path("slips/", views.desk, name="desk"),
    path("slips/live/", views.desk_live, name="desk_live"),
    path("slips/request/", views.slip_request_view, name="slip_request"),
    path("slips/<int:slip_id>/<str:step>/", views.slip_step, name="slip_step"),
    path("slips/report/", views.report, name="report"),
    path("settings/", views.settings_page, name="settings"),
    path("settings/change/", views.settings_change, name="settings_change"),
]
