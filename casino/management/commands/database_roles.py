import os
from typing import Any

import psycopg
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from casino.database_roles import (
    Login,
    application_role_grant,
    application_role_problems,
    roles_create,
)


class Command(BaseCommand):
    help = (
        "Give the application's role (the user of DATABASE_URL) exactly its rights, as the owner "
        "(DATABASE_OWNER_URL); with --admin-url, first create or update both roles as a superuser. "
        "Exit 1 when the application's role can still do more than it should. See docs/operations.md."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--admin-url",
            default=os.environ.get("DATABASE_ADMIN_URL", ""),
            help="a superuser's URL of the same database (default: DATABASE_ADMIN_URL): create or "
            "update the owner and the application roles (passwords from their URLs) and give the "
            "owner the database and its objects",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        application = settings.DATABASE_APPLICATION_ROLE
        if not application:
            raise CommandError(
                "DATABASE_OWNER_URL is not set: there is no owner to grant from (docs/operations.md)"
            )
        owner = Login.from_url(settings.DATABASE_OWNER_URL)
        if options["admin_url"]:
            application_url = os.environ.get("DATABASE_URL")
            login = Login.from_url(application_url) if application_url else Login(application)
            with psycopg.connect(options["admin_url"], autocommit=True) as admin:
                for change in roles_create(admin, owner=owner, application=login):
                    self.stdout.write(change)
        connection.ensure_connection()
        raw = connection.connection
        for statement in application_role_grant(raw, owner=owner.name, application=application):
            self.stdout.write(statement)
        problems = application_role_problems(raw, application=application)
        if problems:
            raise CommandError("; ".join(problems))
        self.stdout.write(
            f"{application}: no superuser, owns nothing, member of no role; "
            f"SELECT and INSERT only on the append-only tables"
        )
