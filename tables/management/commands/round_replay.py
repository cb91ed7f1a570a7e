"""``manage.py round_replay [ROUND_ID | --all | --since DATE]``: replay rounds from their events
and compare with the recorded payouts to the cent; exit status 1 on any difference."""

from __future__ import annotations

import datetime as dt
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from tables.models import Round, RoundStatus
from tables.replay import round_replay_check


class Command(BaseCommand):
    help = "Replay settled rounds from their event logs and compare with the recorded payout lines."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("round_id", nargs="?", type=int)
        parser.add_argument("--all", action="store_true", help="every settled round")
        parser.add_argument("--since", help="rounds settled on or after this date (YYYY-MM-DD)")

    def handle(self, *args: Any, **options: Any) -> None:
        rounds = Round.objects.filter(status=RoundStatus.SETTLED).select_related("table").order_by("pk")
        if options["round_id"] is not None:
            rounds = rounds.filter(pk=options["round_id"])
            if not rounds.exists():
                raise CommandError(f"no settled round {options['round_id']}")
        elif options["since"]:
            day = dt.date.fromisoformat(options["since"])
            start = timezone.make_aware(dt.datetime.combine(day, dt.time()))
            rounds = rounds.filter(settled_at__gte=start)
        elif not options["all"]:
            raise CommandError("give a ROUND_ID, --all or --since DATE")
        checked = differing = 0
        for round_ in rounds.iterator(chunk_size=200):
            result = round_replay_check(round_)
            checked += 1
            if not result.is_equal:
                differing += 1
                for difference in result.differences:
                    self.stderr.write(
                        f"round {round_.pk} ({round_.table.name} #{round_.number}): {difference}"
                    )
        self.stdout.write(f"{checked} rounds replayed, {differing} with differences")
        if differing:
            sys.exit(1)
