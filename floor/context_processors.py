"""The header's count of what waits for the signed-in person, across the venue's approvals and
the accounting office's signatures, and where it leads."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.http import HttpRequest
from django.urls import reverse
from django.utils.functional import cached_property

from accounting.selectors import signatures_waiting_for
from casino.four_eyes import approvals_waiting_count
from casino.selectors import casino_for_user

# Where the header's count leads, by the first permission the person holds: the page that lists
# what waits for them (the pit's floor: signatures and approvals; the slips desk; the drop desk).
WAITING_PAGES = (
    ("supervise_pit", "floor:floor"),
    ("operate_cage", "accounting:desk"),
    ("run_table", "accounting:desk"),
    ("sign_gaming_day", "accounting:drop"),
)


class WaitingForYou:
    """What waits for the signed-in person: the approvals they may decide
    (``casino.four_eyes.approvals_waiting_count``) and the signatures they may give
    (``accounting.selectors.signatures_waiting_for``). Read when a page shows it, once."""

    def __init__(self, user: User | AnonymousUser) -> None:
        self.user = user

    @cached_property
    def count(self) -> int:
        casino = casino_for_user(self.user) if self.user.is_authenticated else None
        if casino is None:
            return 0
        approvals = approvals_waiting_count(user=self.user, casino_id=casino.pk)
        return approvals + len(signatures_waiting_for(user=self.user, casino_id=casino.pk))

    @cached_property
    def url(self) -> str:
        for codename, name in WAITING_PAGES:
            if self.user.has_perm(f"casino.{codename}"):
                return reverse(name)
        return ""


def waiting(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    return {"waiting_for_you": WaitingForYou(user) if user is not None else None}
