from django.apps import AppConfig
from django.core import checks
from django.db.models.signals import post_migrate

from casino.checks import anchor_keys_check, audit_hmac_keys_check
from casino.database_roles import grant_after_migrate


class CasinoConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "casino"
    verbose_name = "Venue, staff, terminals and audit trail"

    def ready(self) -> None:
        # Once the apps are loaded: the signal receivers and the job kinds read the models (not
        # loaded when this module is), and the API schema's extensions register with DRF.
        from casino import api_conf, schema, signals  # noqa: F401  (api_conf: the check of renamed settings)
        from casino.audit_jobs import register_audit_jobs

        post_migrate.connect(grant_after_migrate, sender=self)
        checks.register(audit_hmac_keys_check, "audit")
        checks.register(anchor_keys_check, "audit")
        register_audit_jobs()
