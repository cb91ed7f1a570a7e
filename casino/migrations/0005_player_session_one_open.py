from django.db import migrations, models
from django.utils import timezone


def end_duplicate_open_sessions(apps, schema_editor):
    """Before the constraints: of the sessions open at once for one player or at one terminal
    (two sign-ins at the same moment could leave both open), the newest is kept, and every
    older one that shares its player or its terminal with a kept one ends as replaced."""
    PlayerSession = apps.get_model("casino", "PlayerSession")
    players, terminals, replaced = set(), set(), []
    for session_id, player_id, terminal_id in (
        PlayerSession.objects.filter(ended_at__isnull=True)
        .order_by("-pk")
        .values_list("pk", "player_id", "terminal_id")
    ):
        if player_id in players or terminal_id in terminals:
            replaced.append(session_id)
        else:
            players.add(player_id)
            terminals.add(terminal_id)
    PlayerSession.objects.filter(pk__in=replaced).update(ended_at=timezone.now(), end_reason="replaced")


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0004_player_session"),
        ("tables", "0004_bet_round_no_single_index"),
    ]

    operations = [
        migrations.RunPython(end_duplicate_open_sessions, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="playersession",
            constraint=models.UniqueConstraint(
                condition=models.Q(("ended_at__isnull", True)),
                fields=("player",),
                name="player_session_one_open_per_player",
            ),
        ),
        migrations.AddConstraint(
            model_name="playersession",
            constraint=models.UniqueConstraint(
                condition=models.Q(("ended_at__isnull", True)),
                fields=("terminal",),
                name="player_session_one_open_per_terminal",
            ),
        ),
    ]
