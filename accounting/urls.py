"""The pit's accounting pages, under ``/accounting/``."""

from django.urls import path

from accounting import views_players, views_reports, views_tips
from accounting.views import counts, day, settings, slips

app_name = "accounting"

urlpatterns = [
    path("", day.day, name="day"),
    path("day/close/", day.day_close, name="day_close"),
    path("day/reopen/", day.day_reopen, name="day_reopen"),
    path("day/reopen/<int:approval_id>/decide/", day.day_reopen_decide, name="day_reopen_decide"),
    path("tables/<str:table_name>/", counts.table_page, name="table"),
    path("tables/<str:table_name>/counts/", counts.count_record, name="count_record"),
    path("tables/<str:table_name>/counts/<int:count_id>/sign/", counts.count_sign, name="count_sign"),
    path(
        "tables/<str:table_name>/investigations/<int:investigation_id>/resolve/",
        counts.investigation_resolve_view,
        name="investigation_resolve",
    ),
    path(
        "tables/<str:table_name>/investigations/<int:investigation_id>/approvals/<int:approval_id>/<str:decision>/",
        counts.investigation_decide_view,
        name="investigation_decide",
    ),
    path("slips/", slips.desk, name="desk"),
    path("slips/live/", slips.desk_live, name="desk_live"),
    path("slips/stream/", slips.desk_stream, name="desk_stream"),
    path("slips/request/", slips.slip_request_view, name="slip_request"),
    path("slips/<int:slip_id>/<str:step>/", slips.slip_step, name="slip_step"),
    path(
        "slips/<int:slip_id>/void/<int:approval_id>/<str:decision>/",
        slips.slip_void_decide_view,
        name="slip_void_decide",
    ),
    path("slips/report/", slips.report, name="report"),
    path("settings/", settings.settings_page, name="settings"),
    path("settings/change/", settings.settings_change, name="settings_change"),
    path(
        "settings/approvals/<int:approval_id>/<str:decision>/",
        settings.settings_decide,
        name="settings_decide",
    ),
    # Drop, win and hold (accounting/views_reports.py).
    path("drop/", views_reports.drop_desk, name="drop"),
    path("drop/buy-ins/", views_reports.buy_in_record, name="buy_in_record"),
    path("drop/counts/", views_reports.drop_count_record_view, name="drop_count_record"),
    path("drop/counts/<int:count_id>/sign/", views_reports.drop_count_sign_view, name="drop_count_sign"),
    path("win/", views_reports.win_page, name="win"),
    path("hold/alerts/", views_reports.hold_alerts, name="hold_alerts"),
    path(
        "hold/alerts/<int:alert_id>/resolve/",
        views_reports.hold_alert_resolve_view,
        name="hold_alert_resolve",
    ),
    path("hold/check/", views_reports.hold_check_now, name="hold_check"),
    path("reports/shift/", views_reports.report_shift, name="report_shift"),
    path("reports/day/", views_reports.report_day, name="report_day"),
    path("reports/master/", views_reports.report_master, name="report_master"),
    path("tips/", views_tips.tips_page, name="tips"),
    path("tips/csv/", views_tips.tips_csv, name="tips_csv"),
    path("players/", views_players.players, name="players"),
    path("players/at/<str:table_name>/", views_players.table_players, name="table_players"),
    path("players/<str:key>/ratings/", views_players.player_ratings_page, name="player_ratings"),
    path("cash-log/", views_players.cash_log_page, name="cash_log"),
    path("cash-log/csv/", views_players.cash_log_csv, name="cash_log_csv"),
    path("cash-log/pdf/", views_players.cash_log_pdf, name="cash_log_pdf"),
]
