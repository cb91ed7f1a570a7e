from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView

from casino import api

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # Swagger UI's start script from its own URL (docs/?script), not inline in the page: the
    # Content-Security-Policy runs no inline script.
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-redoc"),
    path("v1/terminal/", api.terminal_identity, name="api-terminal-identity"),
    path("v1/", include("tables.api.urls")),
    # Last: whatever else is under /api/ (newlines in the path too) is a problem+json 404, never an
    # HTML page or a redirect.
    re_path(r"^(?P<path>[\s\S]*)$", api.endpoint_not_found, name="api-not-found"),
]
