"""Project URLs: staff pages, the terminal API and the Django admin (raw data, operators only)."""

from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

urlpatterns = [
    path("admin/", admin.site.urls),
    # The icon, for the browsers that ask /favicon.ico before (or instead of) reading the page's link.
    path("favicon.ico", RedirectView.as_view(url=static("casino/icon.svg")), name="favicon"),
    path("api/", include("casino.api_urls")),
    path("operator/", include("tables.operator_urls")),
    path("operator/", include("cardroom.operator_urls")),
    path("cage/", include("wallet.urls")),
    path("audit/", include("casino.audit_urls")),
    path("accounting/", include("accounting.urls")),
    path("cardroom/", include("cardroom.urls")),
    path("", include("floor.urls")),
    path("", include("tables.urls")),
    path("", include("casino.staff_urls")),
]

# A database outage met outside any view (the session, read by a middleware) answers 503, not 500.
handler500 = "casino.outage.server_error"
