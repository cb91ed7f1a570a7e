"""The auditor's URLs, under ``/audit/``."""

from django.urls import path

from casino import audit_views

app_name = "audit"

urlpatterns = [
    path("", audit_views.home, name="home"),
]
