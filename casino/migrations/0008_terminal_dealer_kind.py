"""A third kind of terminal: the dealer terminal, which runs a table's rounds through the terminal
API. Only the field's choices change: no column, no row is touched."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("casino", "0007_audit_sequence_from_one")]

    operations = [
        migrations.AlterField(
            model_name="terminal",
            name="kind",
            field=models.CharField(
                choices=[
                    ("player_terminal", "Player terminal"),
                    ("card_reader", "Card reader"),
                    ("dealer_terminal", "Dealer terminal"),
                ],
                max_length=20,
            ),
        ),
    ]
