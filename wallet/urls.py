"""The cage's URLs, under ``/cage/``."""

from django.urls import path

from wallet import views

app_name = "cage"

urlpatterns = [
    path("", views.home, name="home"),
]
