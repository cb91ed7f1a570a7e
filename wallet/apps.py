from django.apps import AppConfig


class WalletConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "wallet"
    verbose_name = "Wallet and ledger"

    def ready(self) -> None:
        from wallet.jobs import register_wallet_jobs

        register_wallet_jobs()
