"""Terminal API routes, mounted under ``/api/v1/`` by casino.api_urls.

Numeric path parameters are matched as plain segments and checked by the views, so that a
malformed one is a problem+json 404 like any other, never Django's HTML page."""

from django.urls import path

from tables.api.views import dealer, play, player, table_state

TABLE = "tables/<str:table_id>/"
ROUND = TABLE + "rounds/<str:round_id>/"
BOX = TABLE + "boxes/<str:box>/"

urlpatterns = [
    path("player/balance/", player.BalanceView.as_view(), name="api-player-balance"),
    path("player/statement/", player.StatementView.as_view(), name="api-player-statement"),
    path("player/stream/", player.PlayerStreamView.as_view(), name="api-player-stream"),
    path(TABLE + "state/", table_state.TableStateView.as_view(), name="api-table-state"),
    path(TABLE + "stream/", table_state.TableStreamView.as_view(), name="api-table-stream"),
    path(BOX + "take/", play.BoxTakeView.as_view(), name="api-box-take"),
    path(BOX + "leave/", play.BoxLeaveView.as_view(), name="api-box-leave"),
    path(BOX + "bets-behind/", play.BoxBetsBehindView.as_view(), name="api-box-bets-behind"),
    path(ROUND + "bets/", play.BetPlaceView.as_view(), name="api-bet-place"),
    path(ROUND + "bets/<str:bet_id>/", play.BetCancelView.as_view(), name="api-bet-cancel"),
    path(ROUND + "insurance/", play.InsuranceView.as_view(), name="api-insurance"),
    path(ROUND + "decisions/", play.DecisionView.as_view(), name="api-decision"),
    path(ROUND + "cards/", dealer.CardEnterView.as_view(), name="api-card-enter"),
    path(TABLE + "rounds/", dealer.RoundOpenView.as_view(), name="api-round-open"),
    path(TABLE + "shuffles/", dealer.ShoeShuffleView.as_view(), name="api-shoe-shuffle"),
    path(ROUND + "close-betting/", dealer.RoundCloseBettingView.as_view(), name="api-round-close-betting"),
    path(ROUND + "close-insurance/", dealer.InsuranceCloseView.as_view(), name="api-insurance-close"),
    path(ROUND + "card-correction/", dealer.CardCorrectView.as_view(), name="api-card-correct"),
    path(ROUND + "settle/", dealer.RoundSettleView.as_view(), name="api-round-settle"),
]
