from typing import Any

from django.core.management.base import BaseCommand

from casino.seeding import load_seed, seed_all


class Command(BaseCommand):
    help = "Load the seed data (rule sets, paytables, canasta presets, demo casino). Idempotent."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--show-logins", action="store_true", help="print the demo logins afterwards")

    def handle(self, *args: Any, **options: Any) -> None:
        created = seed_all()
        if not created:
            self.stdout.write("Seed data already loaded; nothing changed.")
        else:
            for line in created:
                self.stdout.write(f"created {line}")
            self.stdout.write(self.style.SUCCESS(f"Seeded {len(created)} item(s)."))
        if options["show_logins"]:
            demo = load_seed("demo_casino.json")
            self.stdout.write("\nDemo logins (staff pages at /login/):")
            for staff in demo["staff"]:
                self.stdout.write(
                    f"  {staff['role']:<9} {staff['username']:<10} password {staff['password']}"
                )
            self.stdout.write("Demo players (terminal sign-in: card number and PIN):")
            for player in demo["players"]:
                self.stdout.write(
                    f"  {player['display_name']:<16} card {player['card_number']}  PIN {player['pin']}"
                )
