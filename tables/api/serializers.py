"""Input and output serializers of the terminal API. Inputs validate what a terminal sends (a
refusal here is a 400 problem with the field errors); outputs describe what the API answers.
Neither holds any game rule: the services decide."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers

from casino.api_serializers import (
    InputSerializer,
    JSONBooleanField,
    JSONIntegerField,
    JSONRegexField,
    OutputSerializer,
)
from games.blackjack.actions import DECISIONS
from tables.models import Bet

# ---------------------------------------------------------------- wallet


class BalanceSerializer(OutputSerializer):
    balance_minor = serializers.IntegerField(help_text="On the wallet, in minor units (cents).")
    held_minor = serializers.IntegerField(help_text="Reserved by open bets.")
    available_minor = serializers.IntegerField(help_text="What the player can still stake.")
    currency = serializers.CharField()


class PresentMixin:
    """A query-string parameter that, when given, must not be empty (DRF would ignore ``?since=``
    as if it were absent)."""

    field_name: str | None  # as on Field; set when the field is bound to its serializer

    def get_value(self, dictionary: Mapping[Any, Any]) -> Any:
        if self.field_name in dictionary:
            return dictionary[self.field_name]
        return serializers.empty


class PresentDateTimeField(PresentMixin, serializers.DateTimeField):
    pass


class PresentIntegerField(PresentMixin, serializers.IntegerField):
    pass


class PresentRegexField(PresentMixin, serializers.RegexField):
    pass


class StatementQuerySerializer(InputSerializer):
    since = PresentDateTimeField(required=False, help_text="Only movements from this moment.")
    limit = PresentIntegerField(
        required=False, min_value=1, max_value=200, default=50, help_text="The most recent N movements."
    )


class StatementLineSerializer(OutputSerializer):
    posting_id = serializers.IntegerField()
    transfer_id = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    kind = serializers.CharField()
    memo = serializers.CharField(allow_blank=True)
    reference_type = serializers.CharField(allow_blank=True)
    reference_id = serializers.CharField(allow_blank=True)
    amount_minor = serializers.IntegerField()
    balance_after_minor = serializers.IntegerField()


class StatementSerializer(OutputSerializer):
    currency = serializers.CharField()
    lines = StatementLineSerializer(many=True)


# ---------------------------------------------------------------- boxes, bets, decisions, cards

MAX_ID = 2**53 - 1
MAX_STAKE_MINOR = 10**12


class BoxSerializer(OutputSerializer):
    table_id = serializers.IntegerField()
    number = serializers.IntegerField()
    owner_id = serializers.IntegerField(allow_null=True, help_text="The player who owns the box, if any.")
    accepts_bets_behind = serializers.BooleanField()


class BetsBehindInputSerializer(InputSerializer):
    accepts = JSONBooleanField(help_text="False: no bets behind me (from the next round).")


class BetInputSerializer(InputSerializer):
    box = JSONIntegerField(min_value=1, max_value=7)
    kind = serializers.ChoiceField(
        choices=["main", "behind", "perfect_pairs", "twenty_one_plus_three"],
        help_text="`main` on your own box, `behind` another player's box, or a side bet on your box.",
    )
    stake_minor = JSONIntegerField(min_value=1, max_value=MAX_STAKE_MINOR)
    follow_double = JSONBooleanField(
        required=False, default=False, help_text="Bets behind only: double when the box owner doubles."
    )
    follow_split = JSONBooleanField(
        required=False, default=False, help_text="Bets behind only: split when the box owner splits."
    )


class BetSerializer(serializers.Serializer[Bet]):
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


class BetListSerializer(OutputSerializer):
    bets = BetSerializer(many=True)


class InsuranceInputSerializer(InputSerializer):
    bet_id = JSONIntegerField(min_value=1, max_value=MAX_ID, help_text="Your main bet or bet behind.")
    take = JSONBooleanField(help_text="True: insure the bet; false: decline.")
    stake_minor = JSONIntegerField(
        required=False,
        min_value=1,
        max_value=MAX_STAKE_MINOR,
        help_text="The insurance stake asked for, with `take`; left out: exactly half the bet's stake. "
        "A rule set with `insurance_stake: up_to_half` takes any multiple of the table's smallest chip "
        "up to half; with `half` (the default) only the half.",
    )


# A player's decisions on a hand, as the engine names them: one choice set in the schema
# (``Decision``: SPECTACULAR_SETTINGS' ENUM_NAME_OVERRIDES).
DECISION_CHOICES = list(DECISIONS)


class DecisionInputSerializer(InputSerializer):
    box = JSONIntegerField(min_value=1, max_value=7)
    decision = serializers.ChoiceField(choices=DECISION_CHOICES)


class CardInputSerializer(InputSerializer):
    card = JSONRegexField(
        r"^\s*(10|[2-9TJQKAtjqka])[SHDCshdc]\s*$",
        max_length=5,
        help_text="Rank and suit as read from the shoe: `AS`, `TD`, `10H`, `7C`.",
    )


class CardCorrectionInputSerializer(InputSerializer):
    card = JSONRegexField(
        r"^\s*(10|[2-9TJQKAtjqka])[SHDCshdc]\s*$",
        max_length=5,
        allow_null=True,
        help_text="The card that really left the shoe (`AS`, `TD`, `10H`), or `null` when none did "
        "(a double read).",
    )
    # No NUL character (PostgreSQL's text cannot hold one). Blanks are left in: what counts as a
    # blank differs between the schema's regular expressions and Python, so a reason of blanks
    # only is the service's refusal (409 reason_required), never the field's.
    reason = JSONRegexField(
        r"^[^\u0000]*$",
        min_length=1,
        max_length=200,
        trim_whitespace=False,
        help_text="Why: what the dealer or the studio saw (not only blanks: `reason_required`). "
        "Audited with the correction.",
    )


class ShoeSerializer(OutputSerializer):
    id = serializers.IntegerField()
    table_id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=["physical", "virtual"])
    decks = serializers.IntegerField()
    commitment = serializers.CharField(
        help_text='Virtual shoe: `sha256(secret + ":" + order)`, stored before the first card; the order '
        "and secret are revealed at the next shuffle. Empty for a physical shoe."
    )
    shuffled_at = serializers.DateTimeField()


class RoundSerializer(OutputSerializer):
    id = serializers.IntegerField()
    table_id = serializers.IntegerField()
    number = serializers.IntegerField()
    status = serializers.CharField()
    version = serializers.IntegerField(help_text="Grows with every event: compare with the table state's.")
    decision_deadline_at = serializers.DateTimeField(allow_null=True)
    awaiting_correction = serializers.BooleanField()


# ---------------------------------------------------------------- table state


class TableStateQuerySerializer(InputSerializer):
    wait = PresentIntegerField(
        required=False,
        min_value=0,
        max_value=60,
        help_text="Long-poll: wait up to this many seconds (capped by the server, 25 by default) for the "
        "state to differ from `version` (or `If-None-Match`); 304 if it did not change meanwhile.",
    )
    version = PresentRegexField(
        r'^(W/)?"?[0-9a-f]{1,64}"?$',
        required=False,
        max_length=70,
        help_text="The `version` (or `ETag`) of the state the terminal shows.",
    )


class StateTableSerializer(OutputSerializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    is_open = serializers.BooleanField()


class StateConfigSerializer(OutputSerializer):
    version = serializers.IntegerField(help_text="The table configuration version (new rounds use it).")
    rule_set = serializers.CharField()
    rule_set_version_id = serializers.IntegerField()
    perfect_pairs_version_id = serializers.IntegerField(allow_null=True)
    twenty_one_plus_three_version_id = serializers.IntegerField(allow_null=True)
    main_min_minor = serializers.IntegerField()
    main_max_minor = serializers.IntegerField()
    perfect_pairs_min_minor = serializers.IntegerField()
    perfect_pairs_max_minor = serializers.IntegerField()
    twenty_one_plus_three_min_minor = serializers.IntegerField()
    twenty_one_plus_three_max_minor = serializers.IntegerField()
    behind_min_minor = serializers.IntegerField()
    behind_max_minor = serializers.IntegerField()
    boxes = serializers.IntegerField()
    boxes_per_player = serializers.IntegerField()
    shuffle_every_rounds = serializers.IntegerField()
    decision_seconds = serializers.IntegerField()
    betting_seconds = serializers.IntegerField()
    bets_behind_allowed = serializers.BooleanField()
    payout_approval_threshold_minor = serializers.IntegerField()
    shoe_kind = serializers.CharField()


class StateShoeSerializer(OutputSerializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    decks = serializers.IntegerField()
    commitment = serializers.CharField(
        allow_blank=True,
        help_text="Virtual shoe: SHA-256 of secret and order, published before the first card.",
    )
    rounds_dealt = serializers.IntegerField()


class StateTurnSerializer(OutputSerializer):
    box = serializers.IntegerField()
    hand = serializers.IntegerField(help_text="Hand index on the box (0, or more after a split).")
    decisions = serializers.ListField(
        child=serializers.ChoiceField(choices=DECISION_CHOICES),
        help_text="The decisions the rules allow on this hand now (a split only of a pair the "
        "rules let split again, a double only where the rules allow it).",
    )


class StateCardExpectedSerializer(OutputSerializer):
    to = serializers.CharField(help_text="`box` or `dealer`.")
    box = serializers.IntegerField(allow_null=True)
    hand = serializers.IntegerField(allow_null=True)
    is_face_up = serializers.BooleanField()


class StateDealerSerializer(OutputSerializer):
    cards = serializers.ListField(
        child=serializers.CharField(allow_null=True),
        help_text="`null` for the hole card until it is revealed.",
    )
    total = serializers.IntegerField(required=False, help_text="Once the hole card is revealed.")
    is_soft = serializers.BooleanField(required=False)
    is_bust = serializers.BooleanField(required=False, help_text="Once the hole card is revealed.")
    is_blackjack = serializers.BooleanField(
        required=False, help_text="A natural, once the hole card is revealed."
    )


class StateRoundSerializer(OutputSerializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    status = serializers.CharField(
        help_text="`betting`, `dealing`, `insurance`, `players`, `dealer`, `settling`, `settled`, `voided`."
    )
    decision_deadline_at = serializers.DateTimeField(
        allow_null=True, help_text="When betting, insurance or the current decision defaults."
    )
    turn = StateTurnSerializer(allow_null=True, help_text="Whose decision it is now.")
    card_expected = StateCardExpectedSerializer(allow_null=True, help_text="Who gets the next card.")
    awaiting_correction = serializers.JSONField(allow_null=True, help_text="The misscan the round waits on.")
    dealer = StateDealerSerializer()


class StateSeatSerializer(OutputSerializer):
    player_id = serializers.IntegerField()
    display_name = serializers.CharField()
    is_owner = serializers.BooleanField()
    win_streak = serializers.IntegerField()


class StateBetSerializer(OutputSerializer):
    bet_id = serializers.IntegerField()
    player_id = serializers.IntegerField()
    kind = serializers.CharField()
    stake_minor = serializers.IntegerField()
    status = serializers.CharField()
    is_mine = serializers.BooleanField(help_text="With a player token: the signed-in player's bet.")


class StateHandSerializer(OutputSerializer):
    cards = serializers.ListField(child=serializers.CharField())
    total = serializers.IntegerField()
    is_soft = serializers.BooleanField()
    is_bust = serializers.BooleanField()
    is_blackjack = serializers.BooleanField(help_text="A natural: two cards making 21, never after a split.")
    stake_minor = serializers.IntegerField()
    is_doubled = serializers.BooleanField()
    is_finished = serializers.BooleanField()


class StateBehindTotalSerializer(OutputSerializer):
    kind = serializers.CharField(help_text="`behind`, or `insurance` (of bets behind).")
    count = serializers.IntegerField()
    stake_minor = serializers.IntegerField(help_text="The stakes of these bets, added up.")


class StateBehindSerializer(OutputSerializer):
    players = serializers.IntegerField(help_text="Players seated behind the box (its owner not counted).")
    bets = StateBehindTotalSerializer(
        many=True, help_text="The bets behind the box (everyone's, yours included) per kind: count and stake."
    )


class StateBoxSerializer(OutputSerializer):
    number = serializers.IntegerField()
    owner_id = serializers.IntegerField(allow_null=True)
    accepts_bets_behind = serializers.BooleanField()
    seats = StateSeatSerializer(
        many=True,
        help_text="The owner's seat, with its streak; with a player token, that player's own seat "
        "behind the box too (the others behind are counted in `behind.players`).",
    )
    behind = StateBehindSerializer(
        help_text="The crowd behind the box, as totals: the state keeps its size however many bet behind."
    )
    bets = StateBetSerializer(
        many=True,
        help_text="The box's own bets (main, side bets, the owner's insurance); with a player token, "
        "that player's own bets behind the box (and their insurance) too, each with `is_mine`. The "
        "others' bets behind are in `behind.bets`, as totals.",
    )
    hands = StateHandSerializer(many=True)


class TableStateSerializer(OutputSerializer):
    version = serializers.CharField(
        help_text="Equals the `ETag` (without quotes): send it back as `version`."
    )
    table = StateTableSerializer()
    config = StateConfigSerializer(allow_null=True, help_text="Limits and settings.")
    shoe = StateShoeSerializer(allow_null=True)
    shuffle_due = serializers.BooleanField(help_text="No round opens until the shuffle is recorded.")
    round = StateRoundSerializer(allow_null=True, help_text="The open round, else the last one.")
    boxes = StateBoxSerializer(many=True)
