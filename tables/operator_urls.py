"""The operator's configuration URLs, under ``/operator/`` (terminals and staff are the venue's:
``casino.staff_urls``)."""

from django.urls import path

from tables.views import operator

app_name = "operator"

urlpatterns = [
    path("", operator.home, name="home"),
]
