"""factory_boy factories shared by the test suite."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password

from casino.actors import Actor
from casino.models import Casino, Player, Terminal


class CasinoFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Casino
        django_get_or_create = ("code",)

    code = "demo"
    name = "Demo Casino"
    currency = "EUR"


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    casino = factory.SubFactory(CasinoFactory)
    card_number = factory.Sequence(lambda n: f"9{n:09d}")
    display_name = factory.Sequence(lambda n: f"Player {n}")
    pin_hash = factory.LazyFunction(lambda: make_password("1234"))


class TerminalFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Terminal

    casino = factory.SubFactory(CasinoFactory)
    name = factory.Sequence(lambda n: f"terminal-{n}")
    kind = Terminal.Kind.PLAYER_TERMINAL


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"staff{n}")
    password = factory.LazyFunction(lambda: make_password("x"))


def staff_user(role: str, username: str | None = None):  # type: ignore[no-untyped-def]
    """A staff user holding one role (its permissions synced from casino.roles)."""
    from casino.services import roles_sync, staff_role_assign

    roles_sync()
    user = UserFactory(username=username or f"{role}-{UserFactory._meta.model.objects.count() + 1}")
    staff_role_assign(user=user, role=role, actor=Actor.automatic("system"))
    return get_user_model().objects.get(pk=user.pk)


def table_settings_applied(*, table, operator, settings):  # type: ignore[no-untyped-def]
    """``settings`` of ``table`` changed by ``operator``, as a test's given: a change that waits
    for a second person (it weakens a control: casino/controls.toml) is approved by a pit boss.
    Returns the table's new configuration version."""
    from tables.models import TableConfigProposal
    from tables.services import Actor, table_config_proposal_approve, table_settings_change

    changed = table_settings_change(table=table, actor=Actor.staff(operator), settings=settings)
    if isinstance(changed, TableConfigProposal):
        pit_boss = staff_user("pit_boss", "pitboss-approves-settings")
        return table_config_proposal_approve(proposal=changed, actor=Actor.staff(pit_boss))
    return changed
