"""The terminal API's shared serializer pieces: JSON body fields that take their own JSON type
only, the input and output serializer types, problem details and the player sessions. The games'
serializers build on them (tables.api.serializers, the card room's API)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

from rest_framework import serializers

# ---------------------------------------------------------------- JSON body fields
# DRF's fields coerce: a boolean field takes 0, 1, "true" or "yes", an integer field "12" or 12.0, a
# string field a number. The OpenAPI schema promises JSON types, and a terminal that sends another
# type has a bug worth hearing about: the fields of request bodies take their own JSON type only.
# (Query parameters are strings by nature and keep DRF's fields.)


class JSONBooleanField(serializers.BooleanField):
    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class JSONIntegerField(serializers.IntegerField):
    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return int(super().to_internal_value(data))


class JSONRegexField(serializers.RegexField):
    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


# ---------------------------------------------------------------- instance types
# DRF's type parameter is the instance a serializer reads. The inputs are only ever bound to request
# data (``data=``), never to an instance; the outputs read the plain mappings the views and
# selectors build (BetSerializer reads the Bet row itself).
InputSerializer: TypeAlias = serializers.Serializer[None]
OutputSerializer: TypeAlias = serializers.Serializer[Mapping[str, Any]]


# ---------------------------------------------------------------- problems


class ProblemDetailSerializer(OutputSerializer):
    """RFC 9457 problem details, plus the stable machine ``code`` a terminal switches on."""

    type = serializers.CharField(help_text="`about:blank#<code>`")
    title = serializers.CharField()
    status = serializers.IntegerField()
    code = serializers.CharField(
        help_text="Stable machine code: `betting_closed`, `stake_above_table_max`, `box_limit_reached`, "
        "`not_box_owner`, `misscan`, `insufficient_funds`, `idempotency_key_reused`, ..."
    )
    detail = serializers.CharField(help_text="A message a terminal can show to the player.")
    # Named like the Serializer.errors property, which it does not replace: SerializerMetaclass takes
    # declared fields off the class, so `errors` stays the validation errors.
    errors = serializers.JSONField(  # type: ignore[assignment]  # a declared field, not the property
        required=False, help_text="Bad input only: the message(s) for each field, by field name."
    )


# ---------------------------------------------------------------- player sessions


class SignInInputSerializer(InputSerializer):
    card_number = JSONRegexField(r"^[A-Za-z0-9\-]{1,32}$", max_length=32)
    pin = JSONRegexField(r"^[0-9]{4,8}$", max_length=8, min_length=4)


class PlayerSerializer(OutputSerializer):
    id = serializers.IntegerField()
    display_name = serializers.CharField()


class PlayerSessionSerializer(OutputSerializer):
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
