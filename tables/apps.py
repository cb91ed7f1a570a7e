from django.apps import AppConfig

from wallet.references import reference_numbering_register


class TablesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tables"
    verbose_name = "Live blackjack tables: configuration, rounds, bets and payouts"

    def ready(self) -> None:
        from casino.seeding import EXTRA_STEPS
        from tables.odds_jobs import register_odds_jobs
        from tables.seeding import seed_canasta_tables, seed_live_tables
        from tables.selectors import round_numbers
        from tables.services import config  # noqa: F401  (the configuration cache's invalidation)

        register_odds_jobs()
        # The cage names a bet's hold by its round's number at the table.
        reference_numbering_register("round", round_numbers)
        for step in (seed_live_tables, seed_canasta_tables):
            if step not in EXTRA_STEPS:
                EXTRA_STEPS.append(step)
