"""A canasta game's score sheet, settlement and void (docs/canasta-tables.md).

- :func:`deal_score_record`: a finished deal's score per side (``CanastaDealScore``), the running
  totals, the next dealer, ``canasta.deal_scored`` audited with the hash of the deal's events;
  when the game ends (``game_standing``: a side reached the target with a single highest total;
  a tie for first plays on) the game is settled at once.
- :func:`settlement_plan`: what each player pays or gets, the fee and the remainder (pure).
- :func:`canasta_void_request`, :func:`canasta_void_approve`, :func:`canasta_void_reject`: the
  host asks with a reason, as a four-eyes approval (``casino.four_eyes``, kind ``canasta_void``),
  and a second person decides; approved, the game is voided and every hold released, nothing
  transferred.

Settlement: each player of a losing side pays ``difference * stake_minor // stake_points``
(rounded down: a fraction of a minor unit is never charged), at most his hold, where the
difference is the winner's total minus his side's; the pot is what the losers pay. The fee is
taken from the pot: ``pot * fee_basis_points // 10000`` (pot share), ``deals * fee_minor`` (per
deal) or ``started hours * fee_minor`` (per hour), never more than the pot. The rest is split
evenly between the winning side's players; what the split leaves (less than one minor unit per
winner) goes to the house rounding account. One wallet transfer (``wallet.services.holds_settle``)
moves it all and releases the holds.

Locks: the game row (the caller's), then the approval being decided, then the wallet's holds
and accounts, the audit chain last.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from cardroom.errors import CanastaError, CanastaReasonRequiredError, GameNotOpenError
from cardroom.models import (
    OPEN_CANASTA_GAME_STATUSES,
    CanastaDeal,
    CanastaDealScore,
    CanastaDealStatus,
    CanastaFeeKind,
    CanastaGame,
    CanastaGamePlayer,
    CanastaGameStatus,
    CanastaVoidRequest,
)
from cardroom.services.common import deal_hash, game_lock, game_rules, next_dealer_seat, require_host
from casino.actors import Actor
from casino.errors import ApprovalNotFoundError, reason_required
from casino.four_eyes import approval_audit_fields, approval_decide, approval_request
from games.canasta import DealScore
from games.canasta.scoring import game_standing
from wallet.models import Account, AccountKind
from wallet.services import SettlementLine, SettlementReference, holds_settle, holds_void

# The four-eyes kind of a void request (casino/controls.toml).
VOID_KIND = "canasta_void"


def deal_score_record(game: CanastaGame, deal: CanastaDeal, score: DealScore, actor: Actor) -> None:
    """Record a finished deal's score (the game locked by the caller): one row per side, the
    game's totals and next dealer, the deal scored, audited ``canasta.deal_scored`` with the
    hash of its events; the game settled if this deal ends it."""
    now = timezone.now()
    CanastaDealScore.objects.bulk_create(
        [
            CanastaDealScore(
                deal=deal,
                side=side,
                score_before=score.totals_before[side],
                melded=part.melded,
                canasta_bonus=part.canasta_bonus,
                canastas=dict(part.canastas),
                red_threes=part.red_threes,
                going_out=part.going_out,
                hand=part.hand,
                deal_total=part.total,
                total=score.totals[side],
                next_opening={
                    "minimum": score.next_requirements[side].minimum,
                    "canasta_at_once": score.next_requirements[side].canasta_at_once,
                    "naturals": score.next_requirements[side].naturals,
                },
            )
            for side, part in enumerate(score.sides)
        ]
    )
    game.totals = list(score.totals)
    game.next_dealer = next_dealer_seat(game, deal.dealer_seat)
    game.deals_scored += 1
    CanastaDeal.objects.filter(pk=deal.pk).update(status=CanastaDealStatus.SCORED, scored_at=now)
    CanastaGame.objects.filter(pk=game.pk).update(
        totals=game.totals, next_dealer=game.next_dealer, deals_scored=game.deals_scored
    )
    actor.audit(
        action="canasta.deal_scored",
        object_type="tables.canastadeal",
        object_id=deal.pk,
        after={
            "game_id": game.pk,
            "number": deal.number,
            "deal_hash": deal_hash(deal),
            "events": deal.version,
            "deal_totals": [part.total for part in score.sides],
            "totals": game.totals,
        },
    )
    over, winner, margin = game_standing(game_rules(game), game.totals)
    if over and winner is not None and margin is not None:
        game_settle_now(game, winner, margin, actor)


@dataclass(frozen=True)
class SettlementPlan:
    """What the wallet moves at a game's end: per seat the signed amount (won > 0, paid < 0), the
    pot, the fee and the remainder of the winners' split (to house rounding)."""

    amounts: dict[int, int]
    pot_minor: int
    fee_minor: int
    rounding_minor: int


def game_fee(game: CanastaGame, pot_minor: int, *, deals: int, hours_started: int) -> int:
    """The house fee of a game, from the pot and never above it (see the module docstring)."""
    if game.fee_kind == CanastaFeeKind.POT_SHARE:
        fee = pot_minor * game.fee_basis_points // 10_000
    elif game.fee_kind == CanastaFeeKind.PER_DEAL:
        fee = deals * game.fee_minor
    elif game.fee_kind == CanastaFeeKind.PER_HOUR:
        fee = hours_started * game.fee_minor
    else:
        fee = 0
    return min(fee, pot_minor)


def settlement_plan(
    game: CanastaGame, seats: dict[int, int], winner: int, *, deals: int, hours_started: int
) -> SettlementPlan:
    """The settlement of ``game`` won by side ``winner``; ``seats`` maps each seat to its side."""
    amounts: dict[int, int] = {}
    for seat, side in sorted(seats.items()):
        if side == winner:
            continue
        difference = game.totals[winner] - game.totals[side]
        amounts[seat] = -min(difference * game.stake_minor // game.stake_points, game.hold_minor)
    pot = -sum(amounts.values())
    fee = game_fee(game, pot, deals=deals, hours_started=hours_started)
    winners = [seat for seat, side in sorted(seats.items()) if side == winner]
    share, remainder = divmod(pot - fee, len(winners))
    for seat in winners:
        amounts[seat] = share
    return SettlementPlan(amounts=amounts, pot_minor=pot, fee_minor=fee, rounding_minor=remainder)


def game_settle_now(game: CanastaGame, winner: int, margin: int, actor: Actor) -> None:
    """Settle the ended game (locked by the caller): the wallet's one transfer, the game ended
    with its winner and fee, audited ``canasta.game_settled``."""
    now = timezone.now()
    players = list(CanastaGamePlayer.objects.filter(game=game).order_by("seat"))
    started = game.started_at or game.opened_at
    hours = max(1, math.ceil((now - started).total_seconds() / 3600))
    plan = settlement_plan(
        game,
        {row.seat: row.side for row in players},
        winner,
        deals=game.deals_scored,
        hours_started=hours,
    )
    accounts = dict(
        Account.objects.filter(
            player_id__in=[row.player_id for row in players], kind=AccountKind.PLAYER
        ).values_list("player_id", "pk")
    )
    # What the split leaves over is kept back from the first winner's share (the house's side,
    # the house account, takes what is left of the pot: the fee).
    first_winner = next(row.seat for row in players if row.side == winner)
    transfer = holds_settle(
        casino=game.table.casino,
        table=game.table,
        reference=SettlementReference("canasta_game", game.pk),
        lines=[
            SettlementLine(
                account_id=accounts[row.player_id],
                hold_id=row.hold_id,
                stake_minor=max(-plan.amounts[row.seat], 0),
                payout_minor=max(plan.amounts[row.seat], 0),
                rounding_minor=plan.rounding_minor if row.seat == first_winner else 0,
            )
            for row in players
        ],
        actor=actor,
        memo=f"{game.table.name} canasta game {game.number}",
    ).transfer
    game.status = CanastaGameStatus.ENDED
    game.winner_side = winner
    game.margin = margin
    game.fee_charged_minor = plan.fee_minor
    game.ended_at = now
    game.settlement_transfer = transfer
    CanastaGame.objects.filter(pk=game.pk).update(
        status=game.status,
        winner_side=winner,
        margin=margin,
        fee_charged_minor=plan.fee_minor,
        ended_at=now,
        settlement_transfer=transfer,
    )
    actor.audit(
        action="canasta.game_settled",
        object_type="tables.canastagame",
        object_id=game.pk,
        before={"status": CanastaGameStatus.PLAYING},
        after={
            "status": CanastaGameStatus.ENDED,
            "totals": game.totals,
            "winner_side": winner,
            "margin": margin,
            "stake_minor": game.stake_minor,
            "stake_points": game.stake_points,
            "amounts": {str(seat): amount for seat, amount in sorted(plan.amounts.items())},
            "pot_minor": plan.pot_minor,
            "fee_minor": plan.fee_minor,
            "rounding_minor": plan.rounding_minor,
            "transfer_id": transfer.pk,
        },
    )


# ------------------------------------------------------------------------------------ the void


def _reason(reason: str) -> str:
    return reason_required(reason, "a reason is required", error=CanastaReasonRequiredError)


def canasta_void_request(*, game_id: int, actor: Actor, reason: str) -> CanastaVoidRequest:
    """The host asks a second person to void a game seating or playing (abandoned), with a
    reason: the request waits as a four-eyes approval (kind ``canasta_void``, one per game at a
    time). Locks the game. Audited ``canasta.void_requested``. Raises ``no_canasta_game``,
    ``game_not_open``, ``approval_pending``, ``reason_required``, ``permission_denied``; a
    refusal writes nothing."""
    reason = _reason(reason)
    with transaction.atomic():
        game = game_lock(game_id)
        table = game.table
        require_host(actor, table)
        if game.status not in OPEN_CANASTA_GAME_STATUSES:
            raise GameNotOpenError(f"the game is {game.status}")
        now = timezone.now()
        approval = approval_request(
            actor=actor,
            casino=table.casino,
            kind=VOID_KIND,
            subject_type="tables.canastagame",
            subject_id=game.pk,
            place=table.name,
            summary=f"Void canasta game {game.number} at {table.name}",
            before={"status": game.status},
            after={"status": CanastaGameStatus.VOIDED},
            reason=reason,
            at=now,
        )
        request = CanastaVoidRequest.objects.create(
            game=game,
            reason=reason,
            requested_by=actor.user,
            requested_by_name=actor.name,
            terminal=actor.terminal,
            requested_at=now,
            approval=approval,
        )
        actor.audit(
            action="canasta.void_requested",
            object_type="tables.canastagame",
            object_id=game.pk,
            after={"request_id": request.pk, "reason": reason, "approval_id": approval.pk},
        )
    return request


def canasta_void_approve(*, request_id: int, actor: Actor) -> CanastaVoidRequest:
    """A second person approves a void request: the game and its deal in play are voided and
    every hold released (the wallet's ``holds_void``), nothing transferred. Who may decide is
    ``casino.four_eyes``'s (``casino.void_round``, never the requester). Locks the game, then
    the approval, then the holds and accounts. Raises ``not_found``, ``game_not_open``,
    ``permission_denied``, ``four_eyes_required``, ``approval_decided``; a refusal writes
    nothing."""
    return _decide(request_id=request_id, actor=actor, approve=True, reason="")


def canasta_void_reject(*, request_id: int, actor: Actor, reason: str) -> CanastaVoidRequest:
    """A second person rejects a void request with a reason; the game goes on. As approving,
    plus ``reason_required``."""
    return _decide(request_id=request_id, actor=actor, approve=False, reason=reason)


def _decide(*, request_id: int, actor: Actor, approve: bool, reason: str) -> CanastaVoidRequest:
    game_id = CanastaVoidRequest.objects.filter(pk=request_id).values_list("game_id", flat=True).first()
    if game_id is None:
        raise CanastaError(f"no request {request_id}", code="not_found")
    with transaction.atomic():
        game = game_lock(game_id)
        request = CanastaVoidRequest.objects.select_related("approval").get(pk=request_id)
        if request.approval_id is None:
            raise ApprovalNotFoundError(f"void request {request_id} has no approval")
        status_before = game.status
        decided = approval_decide(
            approval_id=request.approval_id, actor=actor, approve=approve, reason=reason
        )
        if approve:
            if game.status not in OPEN_CANASTA_GAME_STATUSES:
                raise GameNotOpenError(f"the game is {game.status}")
            hold_ids = list(
                CanastaGamePlayer.objects.filter(game=game)
                .order_by("hold_id")
                .values_list("hold_id", flat=True)
            )
            note = f"canasta game {game.pk} voided: {request.reason}"
            if hold_ids:
                holds_void(hold_ids=hold_ids, reason=note, actor=actor)
            CanastaDeal.objects.filter(game=game, status=CanastaDealStatus.PLAYING).update(
                status=CanastaDealStatus.VOIDED
            )
            CanastaGame.objects.filter(pk=game.pk).update(
                status=CanastaGameStatus.VOIDED, ended_at=decided.decided_at
            )
        actor.audit(
            action="canasta.void_approved" if approve else "canasta.void_rejected",
            object_type="tables.canastagame",
            object_id=game.pk,
            before={"request_id": request.pk, "status": status_before},
            after={
                **approval_audit_fields(decided),
                # the game's status (the approval's is the request's)
                "status": CanastaGameStatus.VOIDED if approve else status_before,
                "request": "approved" if approve else "rejected",
            },
        )
        request.approval = decided
    return request
