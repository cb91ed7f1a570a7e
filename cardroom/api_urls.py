"""The card room's terminal API routes, mounted under ``/api/v1/`` by casino.api_urls."""

from django.urls import path

from cardroom import api as canasta

TABLE = "tables/<str:table_id>/"

urlpatterns = [
    path(TABLE + "canasta/", canasta.CanastaStateView.as_view(), name="api-canasta-state"),
    path(TABLE + "canasta/seats/<str:seat>/", canasta.CanastaSeatView.as_view(), name="api-canasta-seat"),
    path(TABLE + "canasta/moves/", canasta.CanastaMoveView.as_view(), name="api-canasta-move"),
    path(TABLE + "canasta/games/", canasta.CanastaGameOpenView.as_view(), name="api-canasta-game-open"),
    path(TABLE + "canasta/start/", canasta.CanastaGameStartView.as_view(), name="api-canasta-game-start"),
    path(TABLE + "canasta/deals/", canasta.CanastaDealStartView.as_view(), name="api-canasta-deal-start"),
    path(
        TABLE + "canasta/finished-deal/",
        canasta.CanastaFinishedDealView.as_view(),
        name="api-canasta-deal-enter",
    ),
    path(
        TABLE + "canasta/void-request/",
        canasta.CanastaVoidRequestView.as_view(),
        name="api-canasta-void-request",
    ),
]
