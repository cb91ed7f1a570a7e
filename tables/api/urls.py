"""Terminal API routes, mounted under ``/api/v1/`` by casino.api_urls.

Numeric path parameters are matched as plain segments and checked by the views, so that a
malformed one is a problem+json 404 like any other, never Django's HTML page."""

from django.urls import path

from tables.api import views

TABLE = "tables/<str:table_id>/"
ROUND = TABLE + "rounds/<str:round_id>/"
BOX = TABLE + "boxes/<str:box>/"

urlpatterns = [
    path("player/balance/", views.BalanceView.as_view(), name="api-player-balance"),
    path("player/statement/", views.StatementView.as_view(), name="api-player-statement"),
    path(TABLE + "state/", views.TableStateView.as_view(), name="api-table-state"),
    path(BOX + "take/", views.BoxTakeView.as_view(), name="api-box-take"),
    path(BOX + "leave/", views.BoxLeaveView.as_view(), name="api-box-leave"),
    path(BOX + "bets-behind/", views.BoxBetsBehindView.as_view(), name="api-box-bets-behind"),
    path(ROUND + "bets/", views.BetPlaceView.as_view(), name="api-bet-place"),
    path(ROUND + "bets/<str:bet_id>/", views.BetCancelView.as_view(), name="api-bet-cancel"),
    path(ROUND + "insurance/", views.InsuranceView.as_view(), name="api-insurance"),
    path(ROUND + "decisions/", views.DecisionView.as_view(), name="api-decision"),
    path(ROUND + "cards/", views.CardEnterView.as_view(), name="api-card-enter"),
    path(TABLE + "rounds/", views.RoundOpenView.as_view(), name="api-round-open"),
    path(TABLE + "shuffles/", views.ShoeShuffleView.as_view(), name="api-shoe-shuffle"),
    path(ROUND + "close-betting/", views.RoundCloseBettingView.as_view(), name="api-round-close-betting"),
    path(ROUND + "close-insurance/", views.InsuranceCloseView.as_view(), name="api-insurance-close"),
    path(ROUND + "card-correction/", views.CardCorrectView.as_view(), name="api-card-correct"),
    path(ROUND + "settle/", views.RoundSettleView.as_view(), name="api-round-settle"),
]
