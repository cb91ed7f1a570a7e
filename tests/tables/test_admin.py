"""The Django admin of the tables app (tables/admin.py): superusers read every table's raw data
(change lists and change pages) and can add, change or delete nothing; staff without superuser
status do not reach it; a live shoe's order and secret stay hidden."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db.models import Model
from django.test import Client
from django.urls import reverse

from casino.models import RuleSet, RuleSetVersion, Table
from tables.models import (
    Bet,
    PayoutLine,
    Round,
    RoundEvent,
    Shoe,
    SideBetPaytable,
    SideBetPaytableVersion,
    TableConfigVersion,
)
from tables.services import (
    Actor,
    bet_place,
    box_take,
    dealer_sign_on,
    decision_make,
    round_close_betting,
    round_open,
    round_settle,
)
from tests.factories import staff_user
from tests.tables.conftest import at_terminal, funded_player, stack_shoe

MODELS: list[type[Model]] = [
    RuleSet,
    RuleSetVersion,
    SideBetPaytable,
    SideBetPaytableVersion,
    Table,
    TableConfigVersion,
    Shoe,
    Round,
    RoundEvent,
    Bet,
    PayoutLine,
]


def _url(model: type[Model], view: str, *args: Any) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


@pytest.fixture
def played(table: Table, dealer: Any) -> Round:
    """A settled round at BJ1: alice's 10.00 on box 1 stands on 19 against the dealer's 17."""
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    alice = funded_player(table, 10_000, name="Alice Archer")
    as_alice = at_terminal(table, alice)
    box_take(table=table, box_number=1, actor=as_alice)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    bet_place(
        round_id=round_.pk, actor=as_alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="m"
    )
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    decision_make(round_id=round_.pk, actor=as_alice, box_number=1, decision="stand")
    round_settle(round_id=round_.pk, actor=Actor.staff(dealer))
    round_ = Round.objects.get(pk=round_.pk)
    assert round_.status == "settled"
    assert list(PayoutLine.objects.filter(round=round_).values_list("paid_minor", flat=True)) == [2000]
    return round_


@pytest.fixture
def superuser_client(seeded: Any) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.create_superuser(username="root", password="root-secret-1"))
    return client


@pytest.mark.django_db
@pytest.mark.parametrize("model", MODELS, ids=[model.__name__ for model in MODELS])
def test_a_superuser_reads_each_change_list_and_change_page(superuser_client, played, model):
    obj = model._default_manager.order_by("pk").first()
    assert obj is not None, model

    listed = superuser_client.get(_url(model, "changelist"))
    shown = superuser_client.get(_url(model, "change", obj.pk))

    assert listed.status_code == 200
    assert shown.status_code == 200
    assert listed.context["cl"].result_count >= 1
    # view only: no save button, no add link, no delete link
    page = shown.content.decode()
    assert 'name="_save"' not in page
    assert _url(model, "delete", obj.pk) not in page
    assert _url(model, "add") not in listed.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("model", MODELS, ids=[model.__name__ for model in MODELS])
def test_a_superuser_can_add_change_or_delete_nothing(superuser_client, played, model):
    obj = model._default_manager.order_by("pk").first()
    before = model._default_manager.count()

    assert superuser_client.get(_url(model, "add")).status_code == 403
    assert superuser_client.post(_url(model, "add"), {}).status_code == 403
    assert superuser_client.post(_url(model, "change", obj.pk), {}).status_code == 403
    assert superuser_client.get(_url(model, "delete", obj.pk)).status_code == 403
    assert superuser_client.post(_url(model, "delete", obj.pk), {"post": "yes"}).status_code == 403
    bulk = superuser_client.post(
        _url(model, "changelist"), {"action": "delete_selected", "_selected_action": [obj.pk]}
    )
    assert bulk.status_code in (200, 302)
    assert model._default_manager.count() == before


@pytest.mark.django_db
def test_a_round_page_shows_its_events(superuser_client, played):
    page = superuser_client.get(_url(Round, "change", played.pk)).content.decode()

    kinds = set(RoundEvent.objects.filter(round=played).values_list("kind", flat=True))
    assert len(kinds) >= 3
    for kind in kinds:
        assert kind in page


@pytest.mark.django_db
def test_a_live_shoe_hides_its_order_and_secret(superuser_client, played):
    shoe = Shoe.objects.get(pk=played.shoe_id)
    assert shoe.retired_at is None and shoe.secret

    page = superuser_client.get(_url(Shoe, "change", shoe.pk)).content.decode()

    assert shoe.secret not in page
    assert "Secret" not in page
    assert shoe.commitment in page


@pytest.mark.django_db
def test_a_retired_shoe_shows_its_order_and_secret(superuser_client, played):
    shoe = Shoe.objects.get(pk=played.shoe_id)
    Shoe.objects.filter(pk=shoe.pk).update(retired_at=played.opened_at)

    page = superuser_client.get(_url(Shoe, "change", shoe.pk)).content.decode()

    assert shoe.secret in page


@pytest.mark.django_db
@pytest.mark.parametrize("model", [Round, RoundEvent, Bet, PayoutLine, TableConfigVersion, Shoe])
def test_change_lists_take_a_fixed_number_of_queries(
    superuser_client, played, model, django_assert_max_num_queries
):
    with django_assert_max_num_queries(12):
        assert superuser_client.get(_url(model, "changelist")).status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["dealer", "pit_boss", "operator", "auditor", "cashier"])
def test_staff_without_superuser_do_not_reach_the_admin(seeded, role):
    client = Client()
    client.force_login(staff_user(role, f"{role}-admin"))

    for url in ("/admin/", _url(Round, "changelist"), _url(Table, "change", Table.objects.first().pk)):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith("/admin/login/"), url


@pytest.mark.django_db
def test_a_staff_flagged_account_without_superuser_sees_no_table(seeded):
    user = staff_user("operator", "operator-admin")
    get_user_model().objects.filter(pk=user.pk).update(is_staff=True)
    client = Client()
    client.force_login(get_user_model().objects.get(pk=user.pk))

    assert "Tables" not in client.get("/admin/").content.decode()
    for model in MODELS:
        assert client.get(_url(model, "changelist")).status_code == 403, model
