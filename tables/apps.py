from django.apps import AppConfig

from wallet.references import reference_numbering_register


class TablesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tables"
    verbose_name = "Live blackjack tables: configuration, rounds, bets and payouts"

    def ready(self) -> None:
        # These read the models, which are not loaded when this module is.
        from tables.jobs import register_tables_jobs
        from tables.odds_jobs import register_odds_jobs
        from tables.references import round_numbers
        from tables.services import config  # noqa: F401  (the configuration cache's invalidation)

        register_tables_jobs()
        register_odds_jobs()
        # The cage names a bet's hold by its round's number at the table.
        reference_numbering_register("round", round_numbers)
