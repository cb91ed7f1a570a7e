"""The boxes of a blackjack table and the players seated at them."""

from __future__ import annotations

from django.db import models

from casino.models import Table

# The numbers of a blackjack table's boxes (a rule set may use fewer of them).
BOX_NUMBERS = range(1, 8)


class Box(models.Model):
    """One of the table's seven betting positions. ``owner`` is the first seated player still
    there (rules/blackjack.md 2.3); ``accepts_bets_behind`` is the owner's setting, copied into a
    round when it opens (so a change takes effect from the next round)."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="boxes")
    number = models.PositiveSmallIntegerField()
    owner = models.ForeignKey(
        "casino.Player", on_delete=models.PROTECT, null=True, blank=True, related_name="owned_boxes"
    )
    accepts_bets_behind = models.BooleanField(default=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["table", "number"], name="box_unique_number")]
        ordering = ["table", "number"]

    def __str__(self) -> str:
        return f"{self.table} box {self.number}"


class Seat(models.Model):
    """A player at a box: its owner or a bettor behind. Arrival order is the primary key order.
    Deleted when the player leaves (and the win streak with it)."""

    box = models.ForeignKey(Box, on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey("casino.Player", on_delete=models.PROTECT, related_name="seats")
    arrived_at = models.DateTimeField(auto_now_add=True)
    win_streak = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["box", "player"], name="seat_unique_player")]
        ordering = ["box", "id"]

    def __str__(self) -> str:
        return f"{self.player_id} at {self.box}"
