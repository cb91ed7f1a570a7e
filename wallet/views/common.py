"""What the cage's pages share: who may see them, the staff member's casino and its player, the
labels of the transfers, the adjustments waiting, and a cage transaction's receipt."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest
from django.utils.translation import gettext_lazy

from casino.four_eyes import may_decide
from casino.models import Casino, Player
from casino.selectors import casino_for_user
from casino.views import AnyResponse
from wallet.models import AdjustmentStatus, BalanceAdjustment, Posting, Transfer, TransferKind

CAGE_PERMISSIONS = ("casino.operate_cage", "casino.adjust_balance")
# The transfers a receipt is printed for: the cage's own transactions.
RECEIPT_KINDS = (TransferKind.BUY_IN, TransferKind.CASH_OUT, TransferKind.ADJUSTMENT)
KIND_LABELS = {
    TransferKind.BUY_IN: gettext_lazy("Buy-in"),
    TransferKind.CASH_OUT: gettext_lazy("Cash-out"),
    TransferKind.TABLE_FILL: gettext_lazy("Table fill"),
    TransferKind.TABLE_CREDIT: gettext_lazy("Table credit"),
    TransferKind.ADJUSTMENT: gettext_lazy("Balance adjustment"),
    TransferKind.PLAYER_TRANSFER: gettext_lazy("Transfer between players"),
    TransferKind.ROUND_SETTLEMENT: gettext_lazy("Round settlement"),
    TransferKind.PAYOUT_RELEASE: gettext_lazy("Payout released"),
    TransferKind.PAYOUT_REJECT: gettext_lazy("Payout rejected"),
    TransferKind.REVERSAL: gettext_lazy("Reversal"),
    TransferKind.TIP: gettext_lazy("Tip to the dealers"),
}
ADJUSTMENT_DONE_TEXTS = {
    "approve": gettext_lazy("Adjustment approved and applied."),
    "reject": gettext_lazy("Adjustment rejected."),
}


def cage_page(view: Callable[..., AnyResponse]) -> Callable[..., AnyResponse]:
    """Anonymous visitors go to the login page; staff who neither operate the cage nor adjust
    balances get 403 (a page, a partial, or a page's stream)."""

    @wraps(view)
    def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> AnyResponse:
        if not any(request.user.has_perm(permission) for permission in CAGE_PERMISSIONS):
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return login_required(checked)


def cage_casino(request: HttpRequest) -> Casino:
    casino = casino_for_user(request.user)
    if casino is None:
        raise Http404("no casino")
    return casino


def cage_player(request: HttpRequest, player_id: int) -> Player:
    """The player ``player_id`` of the staff member's casino; 404 otherwise."""
    player = Player.objects.select_related("casino").filter(pk=player_id, casino=cage_casino(request)).first()
    if player is None:
        raise Http404(f"no player {player_id}")
    return player


def masked_card(card_number: str) -> str:
    """Every character but the last four as a bullet: ``1000000001`` -> ``••••••0001``."""
    shown = card_number[-4:]
    return "\u2022" * (len(card_number) - len(shown)) + shown


def pending_adjustments(*, casino: Casino, player: Player | None = None) -> list[BalanceAdjustment]:
    adjustments = BalanceAdjustment.objects.filter(
        status=AdjustmentStatus.PENDING, account__casino=casino
    ).select_related("account__player", "requested_by", "approval")
    if player is not None:
        adjustments = adjustments.filter(account__player=player)
    return list(adjustments.order_by("pk"))


def adjustments_waiting(
    request: HttpRequest, *, casino: Casino, player: Player | None = None
) -> dict[str, Any]:
    """The pending adjustments (of ``player``, or of the casino), and the ids of those the
    signed-in person may decide now (``casino.four_eyes.may_decide``: not their own request)."""
    adjustments = pending_adjustments(casino=casino, player=player)
    decidable = {
        adjustment.pk
        for adjustment in adjustments
        if adjustment.approval is not None and may_decide(approval=adjustment.approval, user=request.user)
    }
    return {"adjustments": adjustments, "decidable_adjustment_ids": decidable}


@dataclass(frozen=True)
class Receipt:
    transfer: Transfer
    player: Player
    amount_minor: int
    kind_label: str
    card_masked: str


def receipt_for(*, casino: Casino, transfer_id: int) -> Receipt | None:
    """The receipt of a cage transaction (buy-in, cash-out, adjustment) of the casino: the player
    whose wallet it moved and by how much (their posting); None for any other transfer."""
    posting = (
        Posting.objects.select_related("transfer__created_by", "transfer__casino", "account__player")
        .filter(
            transfer_id=transfer_id,
            transfer__casino=casino,
            transfer__kind__in=RECEIPT_KINDS,
            account__player__isnull=False,
        )
        .first()
    )
    if posting is None or posting.account.player is None:
        return None
    player = posting.account.player
    return Receipt(
        transfer=posting.transfer,
        player=player,
        amount_minor=posting.amount_minor,
        kind_label=str(KIND_LABELS[TransferKind(posting.transfer.kind)]),
        card_masked=masked_card(player.card_number),
    )
