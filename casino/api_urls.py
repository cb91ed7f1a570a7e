from csp.constants import SELF, UNSAFE_INLINE
from csp.decorators import csp_update
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView

from casino import api, api_views

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # Swagger UI's start script from its own URL (docs/?script), not inline in the page: the
    # Content-Security-Policy runs no inline script.
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    # ReDoc draws with styled-components, which writes <style> elements as it renders, and runs
    # its search in a worker it makes from a blob: its page alone allows inline styles and blob:
    # workers (still no inline script, no eval). Without the styles it shows only "Something went
    # wrong..." (tests/browser/test_api_docs.py).
    path(
        "redoc/",
        csp_update({"style-src": [UNSAFE_INLINE], "worker-src": [SELF, "blob:"]})(
            SpectacularRedocView.as_view(url_name="api-schema")
        ),
        name="api-redoc",
    ),
    path("v1/terminal/", api.terminal_identity, name="api-terminal-identity"),
    path("v1/player-sessions/", api_views.SignInView.as_view(), name="api-player-sign-in"),
    path("v1/player-sessions/current/", api_views.CurrentSessionView.as_view(), name="api-player-session"),
    path("v1/", include("tables.api.urls")),
    path("v1/", include("cardroom.api_urls")),
    path("v1/", include("accounting.api_urls")),
    # Last: whatever else is under /api/ (newlines in the path too) is a problem+json 404, never an
    # HTML page or a redirect.
    re_path(r"^(?P<path>[\s\S]*)$", api.endpoint_not_found, name="api-not-found"),
]
