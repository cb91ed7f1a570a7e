"""The auditor's URLs, under ``/audit/``."""

from django.urls import path

from casino import audit_views

app_name = "audit"

urlpatterns = [
    path("", audit_views.home, name="home"),
    path("export.csv", audit_views.export, name="export"),
    path("records/<int:sequence>/", audit_views.record, name="record"),
    path("checks/<slug:check>/start/", audit_views.check_start, name="check_start"),
    path("checks/<int:job_id>/", audit_views.check, name="check"),
    path("checks/<int:job_id>/stream/", audit_views.check_stream, name="check_stream"),
]
