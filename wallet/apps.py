from django.apps import AppConfig


class WalletConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "wallet"
    verbose_name = "Wallet and ledger"

    def ready(self) -> None:
        from casino.seeding import EXTRA_STEPS
        from wallet.seeding import seed_wallet

        if seed_wallet not in EXTRA_STEPS:
            EXTRA_STEPS.append(seed_wallet)
