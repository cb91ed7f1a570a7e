"""The cage's URLs, under ``/cage/``."""

from django.urls import path

from wallet.views import adjustments, money, players

app_name = "cage"

urlpatterns = [
    path("", players.home, name="home"),
    path("players/new/", players.player_register, name="player_register"),
    path("players/<int:player_id>/", players.player_page, name="player"),
    path("players/<int:player_id>/live/", players.player_live, name="player_live"),
    path("players/<int:player_id>/stream/", players.player_stream, name="player_stream"),
    path("players/<int:player_id>/buy-in/", money.buy_in, name="buy_in"),
    path("players/<int:player_id>/cash-out/", money.cash_out, name="cash_out"),
    path("players/<int:player_id>/lock/", players.card_lock, name="card_lock"),
    path("players/<int:player_id>/unlock/", players.card_unlock, name="card_unlock"),
    path("players/<int:player_id>/adjust/", money.adjust, name="adjust"),
    path("adjustments/", adjustments.adjustments, name="adjustments"),
    path(
        "adjustments/<int:adjustment_id>/<slug:decision>/",
        adjustments.adjustment_decide,
        name="adjustment_decide",
    ),
    path("receipts/<int:transfer_id>/", money.receipt, name="receipt"),
]
