"""The operator's configuration URLs, under ``/operator/`` (terminals and staff are the venue's:
``casino.staff_urls``)."""

from django.urls import path

from tables.views.operator import approvals, home, rule_sets, table_config

app_name = "operator"

urlpatterns = [
    path("", home.home, name="home"),
    path("tables/new/", table_config.table_new, name="table_new"),
    path("tables/<str:table_name>/", table_config.table_detail, name="table"),
    path("tables/<str:table_name>/edge/", table_config.table_edge, name="table_edge"),
    path("rule-sets/<int:rule_set_id>/", rule_sets.rule_set_detail, name="rule_set"),
    path("rule-set-versions/<int:version_id>/edge/", rule_sets.main_edge, name="main_edge"),
    path("rule-set-versions/edges/stream/", rule_sets.main_edge_stream, name="main_edge_stream"),
    path("paytables/<int:paytable_id>/", rule_sets.paytable_detail, name="paytable"),
    path("paytables/<int:paytable_id>/preview/", rule_sets.paytable_preview, name="paytable_preview"),
    path("approvals/", approvals.approvals, name="approvals"),
    path(
        "approvals/<slug:kind>/<int:item_id>/<slug:decision>/",
        approvals.approval_decide_page,
        name="approval_decide",
    ),
]
