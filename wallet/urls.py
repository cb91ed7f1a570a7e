"""The cage's URLs, under ``/cage/``."""

from django.urls import path

from wallet import views

app_name = "cage"

urlpatterns = [
    path("", views.home, name="home"),
    path("players/new/", views.player_register, name="player_register"),
    path("players/<int:player_id>/", views.player_page, name="player"),
    path("players/<int:player_id>/buy-in/", views.buy_in, name="buy_in"),
    path("players/<int:player_id>/cash-out/", views.cash_out, name="cash_out"),
    path("players/<int:player_id>/lock/", views.card_lock, name="card_lock"),
    path("players/<int:player_id>/unlock/", views.card_unlock, name="card_unlock"),
    path("players/<int:player_id>/adjust/", views.adjust, name="adjust"),
    path("adjustments/", views.adjustments, name="adjustments"),
    path(
        "adjustments/<int:adjustment_id>/<slug:decision>/",
        views.adjustment_decide,
        name="adjustment_decide",
    ),
    path("receipts/<int:transfer_id>/", views.receipt, name="receipt"),
]
