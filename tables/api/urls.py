"""Terminal API routes, mounted under ``/api/v1/`` by casino.api_urls."""

from django.urls import path

from tables.api import views

urlpatterns = [
    path("player-sessions/", views.SignInView.as_view(), name="api-player-sign-in"),
    path("player-sessions/current/", views.CurrentSessionView.as_view(), name="api-player-session"),
    path("player/balance/", views.BalanceView.as_view(), name="api-player-balance"),
    path("player/statement/", views.StatementView.as_view(), name="api-player-statement"),
]
