from django.apps import AppConfig


class CasinoConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "casino"
    verbose_name = "Venue, staff, terminals and audit trail"

    def ready(self) -> None:
        from casino import schema, signals  # noqa: F401
