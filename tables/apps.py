from django.apps import AppConfig

from tables.api import conf  # noqa: F401  (registers the check of renamed settings)


class TablesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tables"
    verbose_name = "Tables, rule sets and rounds"

    def ready(self) -> None:
        # These read the models, which are not loaded when this module is.
        from tables.jobs import register_tables_jobs
        from tables.odds_jobs import register_odds_jobs
        from tables.services import config  # noqa: F401  (the configuration cache's invalidation)

        register_tables_jobs()
        register_odds_jobs()
