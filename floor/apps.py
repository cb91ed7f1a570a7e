from django.apps import AppConfig


class FloorConfig(AppConfig):
    name = "floor"
    verbose_name = "The floor's desks: the dealer console and the pit desk"
