"""Factories for the venue rows the wallet tests need."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model

from casino.models import Casino, Game, Pit, Player, RuleSet, Table


class CasinoFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Casino
        django_get_or_create = ("code",)

    code = "test"
    name = "Test Casino"
    currency = "EUR"
    currency_exponent = 2


class PitFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Pit

    casino = factory.SubFactory(CasinoFactory)
    name = factory.Sequence(lambda n: f"Pit {n}")


class RuleSetFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = RuleSet
        django_get_or_create = ("game", "name")

    game = Game.BLACKJACK
    name = "test-rules"


class TableFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Table

    casino = factory.SubFactory(CasinoFactory)
    pit = factory.SubFactory(PitFactory, casino=factory.SelfAttribute("..casino"))
    name = factory.Sequence(lambda n: f"BJ{n}")
    game = Game.BLACKJACK
    rule_set = factory.SubFactory(RuleSetFactory)


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    casino = factory.SubFactory(CasinoFactory)
    card_number = factory.Sequence(lambda n: f"9{n:09d}")
    display_name = factory.Sequence(lambda n: f"Player {n}")
    pin_hash = "!"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"staff{n}")
