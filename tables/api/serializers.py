"""Input and output serializers of the terminal API. Inputs validate what a terminal sends (a
refusal here is a 400 problem with the field errors); outputs describe what the API answers.
Neither holds any game rule: the services decide."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

# ---------------------------------------------------------------- problems


class ProblemDetailSerializer(serializers.Serializer):
    """RFC 9457 problem details, plus the stable machine ``code`` a terminal switches on."""

    type = serializers.CharField(help_text="`about:blank#<code>`")
    title = serializers.CharField()
    status = serializers.IntegerField()
    code = serializers.CharField(
        help_text="Stable machine code: `betting_closed`, `stake_above_table_max`, `box_limit_reached`, "
        "`not_box_owner`, `misscan`, `insufficient_funds`, `idempotency_key_reused`, ..."
    )
    detail = serializers.CharField(help_text="A message a terminal can show to the player.")
    errors = serializers.JSONField(
        required=False, help_text="Bad input only: the message(s) for each field, by field name."
    )


# ---------------------------------------------------------------- player sessions


class SignInInputSerializer(serializers.Serializer):
    card_number = serializers.RegexField(r"^[A-Za-z0-9\-]{1,32}$", max_length=32)
    pin = serializers.RegexField(r"^[0-9]{4,8}$", max_length=8, min_length=4)


class PlayerSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    display_name = serializers.CharField()


class PlayerSessionSerializer(serializers.Serializer):
    player = PlayerSerializer()
    table_id = serializers.IntegerField()
    terminal_id = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(help_text="Slides forward while the session is used.")
    hard_expires_at = serializers.DateTimeField(help_text="The session ends at this moment at the latest.")


class SignInOutputSerializer(PlayerSessionSerializer):
    token = serializers.CharField(
        help_text="The player token, shown once: send it as `X-Player-Token` with the terminal credential."
    )


# ---------------------------------------------------------------- wallet


class BalanceSerializer(serializers.Serializer):
    balance_minor = serializers.IntegerField(help_text="On the wallet, in minor units (cents).")
    held_minor = serializers.IntegerField(help_text="Reserved by open bets.")
    available_minor = serializers.IntegerField(help_text="What the player can still stake.")
    currency = serializers.CharField()


class PresentDateTimeField(serializers.DateTimeField):
    """A query-string date-time that, when given, must not be empty (DRF would ignore ``?since=``)."""

    def get_value(self, dictionary: Any) -> Any:
        if self.field_name in dictionary:
            return dictionary[self.field_name]
        return serializers.empty


class StatementQuerySerializer(serializers.Serializer):
    since = PresentDateTimeField(required=False, help_text="Only movements from this moment.")
    limit = serializers.IntegerField(
        required=False, min_value=1, max_value=200, default=50, help_text="The most recent N movements."
    )


class StatementLineSerializer(serializers.Serializer):
    posting_id = serializers.IntegerField()
    transfer_id = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    kind = serializers.CharField()
    memo = serializers.CharField(allow_blank=True)
    reference_type = serializers.CharField(allow_blank=True)
    reference_id = serializers.CharField(allow_blank=True)
    amount_minor = serializers.IntegerField()
    balance_after_minor = serializers.IntegerField()


class StatementSerializer(serializers.Serializer):
    currency = serializers.CharField()
    lines = StatementLineSerializer(many=True)


# ---------------------------------------------------------------- boxes, bets, decisions, cards

MAX_ID = 2**53 - 1
MAX_STAKE_MINOR = 10**12


class BoxSerializer(serializers.Serializer):
    table_id = serializers.IntegerField()
    number = serializers.IntegerField()
    owner_id = serializers.IntegerField(allow_null=True, help_text="The player who owns the box, if any.")
    accepts_bets_behind = serializers.BooleanField()


class BetsBehindInputSerializer(serializers.Serializer):
    accepts = serializers.BooleanField(help_text="False: no bets behind me (from the next round).")


class BetInputSerializer(serializers.Serializer):
    box = serializers.IntegerField(min_value=1, max_value=20)
    kind = serializers.ChoiceField(
        choices=["main", "behind", "perfect_pairs", "twenty_one_plus_three"],
        help_text="`main` on your own box, `behind` another player's box, or a side bet on your box.",
    )
    stake_minor = serializers.IntegerField(min_value=1, max_value=MAX_STAKE_MINOR)
    follow_double = serializers.BooleanField(
        required=False, default=False, help_text="Bets behind only: double when the box owner doubles."
    )
    follow_split = serializers.BooleanField(
        required=False, default=False, help_text="Bets behind only: split when the box owner splits."
    )


class BetSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    round_id = serializers.IntegerField()
    box = serializers.IntegerField(source="box_number")
    player_id = serializers.IntegerField()
    kind = serializers.CharField()
    stake_minor = serializers.IntegerField()
    follow_double = serializers.BooleanField()
    follow_split = serializers.BooleanField()
    status = serializers.CharField()
    placed_at = serializers.DateTimeField()


class BetListSerializer(serializers.Serializer):
    bets = BetSerializer(many=True)


class InsuranceInputSerializer(serializers.Serializer):
    bet_id = serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text="Your main bet or bet behind.")
    take = serializers.BooleanField(help_text="True: insure for half the stake; false: decline.")


class DecisionInputSerializer(serializers.Serializer):
    box = serializers.IntegerField(min_value=1, max_value=20)
    decision = serializers.ChoiceField(choices=["hit", "stand", "double", "split", "surrender"])


class CardInputSerializer(serializers.Serializer):
    card = serializers.RegexField(
        r"^\s*(10|[2-9TJQKAtjqka])[SHDCshdc]\s*$",
        max_length=5,
        help_text="Rank and suit as read from the shoe: `AS`, `TD`, `10H`, `7C`.",
    )


class RoundSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table_id = serializers.IntegerField()
    number = serializers.IntegerField()
    status = serializers.CharField()
    version = serializers.IntegerField(help_text="Grows with every event: compare with the table state's.")
    decision_deadline_at = serializers.DateTimeField(allow_null=True)
    awaiting_correction = serializers.BooleanField()
