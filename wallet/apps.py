from django.apps import AppConfig


class WalletConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "wallet"
    verbose_name = "Wallet and ledger"

    def ready(self) -> None:
        from casino.seeding import EXTRA_STEPS
        from wallet.jobs import register_wallet_jobs
        from wallet.seeding import seed_wallet

        register_wallet_jobs()
        if seed_wallet not in EXTRA_STEPS:
            EXTRA_STEPS.append(seed_wallet)
