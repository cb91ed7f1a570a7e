"""Project URLs: staff pages, the terminal API and the Django admin (raw data, operators only)."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("casino.api_urls")),
    path("", include("tables.urls")),
    path("", include("casino.staff_urls")),
]
