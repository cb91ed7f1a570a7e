"""The operator's configuration URLs, under ``/operator/`` (terminals and staff are the venue's:
``casino.staff_urls``)."""

from django.urls import path

from tables.views import operator

app_name = "operator"

urlpatterns = [
    path("", operator.home, name="home"),
    path("tables/new/", operator.table_new, name="table_new"),
    path("tables/<str:table_name>/", operator.table_detail, name="table"),
    path("tables/<str:table_name>/edge/", operator.table_edge, name="table_edge"),
    path("rule-sets/<int:rule_set_id>/", operator.rule_set_detail, name="rule_set"),
    path("rule-set-versions/<int:version_id>/edge/", operator.main_edge, name="main_edge"),
    path("paytables/<int:paytable_id>/", operator.paytable_detail, name="paytable"),
    path("paytables/<int:paytable_id>/preview/", operator.paytable_preview, name="paytable_preview"),
    path("approvals/", operator.approvals, name="approvals"),
    path(
        "approvals/<slug:kind>/<int:item_id>/<slug:decision>/",
        operator.approval_decide,
        name="approval_decide",
    ),
]
