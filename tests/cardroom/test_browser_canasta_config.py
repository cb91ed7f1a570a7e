"""The operator's page of a canasta table in a real browser: one operator asks for a lower house
fee at CA2, the page says it waits and offers him no decision; a second operator sees the change
with what it weakens, approves it, and the versions side by side show who made and who approved
it. The screenshots go to ``var/screens/canasta-config-flow/``; ``docs/screens/canasta-config-flow/``
keeps the set."""

from __future__ import annotations

from typing import Any

import pytest

from cardroom.models import CanastaTableSettings
from tests.browser.conftest import Screens, browser, signed_in  # noqa: F401  (the browser fixture)
from tests.factories import staff_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_fee_change_asked_by_one_operator_and_approved_by_another(
    browser: Any,  # noqa: F811
    live_server: Any,
    seeded: None,
) -> None:
    staff_user("operator", "olaf")  # the second operator (password "x")
    screens = Screens("canasta-config-flow")
    asker = signed_in(browser, live_server, "operator", "operator-demo")

    asker.goto(f"{live_server.url}/operator/tables/CA2/canasta/")
    screens.take(asker, "ca2-configuration")
    asker.fill("#canasta-config-form input[name=fee_percent]", "1.50")
    asker.fill("#canasta-config-form input[name=reason]", "the new fee schedule")
    with asker.expect_navigation():
        asker.click("#canasta-config-form button[type=submit]")
    assert "waits for a second operator" in asker.content()
    assert asker.locator("#pending-change button").count() == 0  # the requester never decides
    screens.take(asker, "change-waiting")

    approver = signed_in(browser, live_server, "olaf", "x")
    approver.goto(f"{live_server.url}/operator/tables/CA2/canasta/")
    assert "weakens a control" in approver.inner_text("#pending-change")
    screens.take(approver, "second-operator-sees-the-change")
    with approver.expect_navigation():
        approver.click("#pending-change button.approve")

    assert "Version 2 of CA2 approved" in approver.content()
    assert CanastaTableSettings.objects.get(table__name="CA2", number=2).fee_basis_points == 150
    assert "operator / olaf" in approver.inner_text("#version-history")
    screens.take(approver, "approved-version-history")
    asker.context.close()
    approver.context.close()
