"""One round's summary (the round's page, the dealer's console and recall): its cards from the
engine snapshot, every bet with its stake at risk and its payout lines (what each pays, what the
player received, the decision on it), and the round's totals."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from casino.models import Player
from casino.money import money
from casino.templatetags.staff import staff_name
from games.blackjack import RoundState
from games.cards import hand_value, is_blackjack
from tables.models import ApprovalStatus, Bet, PayoutLine, Round
from tables.payout_labels import OUTCOME_LABELS
from tables.round_audit.cards import CardView, card_view_of
from tables.round_audit.labels import APPROVAL_LABELS, BET_KIND_LABELS, BET_STATUS_LABELS, status_label
from tables.round_audit.money import (
    RETURNED_STATUSES,
    bet_at_risk_minor,
    line_received_minor,
    round_state_of,
    stakes_on_hands,
)


@dataclass(frozen=True)
class HandView:
    cards: list[CardView]
    total: int
    is_soft: bool
    is_bust: bool
    is_blackjack: bool
    is_doubled: bool
    is_split: bool
    is_surrendered: bool


@dataclass(frozen=True)
class BoxView:
    number: int
    owner_name: str
    hands: list[HandView]


@dataclass(frozen=True)
class LineView:
    """One payout line: its stake, what the rules pay (``payout``), what the player received
    (``paid``: nothing while it awaits approval or once rejected) and the decision on it (who,
    when and why, when it waited for a pit boss)."""

    pk: int
    hand: int | None
    outcome: str
    outcome_label: str
    rule: str
    multiplier: str
    stake: str
    payout: str
    paid: str
    paid_minor: int
    approval_status: str
    approval_label: str
    is_awaiting_approval: bool
    decided_by: str = ""
    decided_at: dt.datetime | None = None
    decision_reason: str = ""


@dataclass(frozen=True)
class BetView:
    """One bet: its stake at risk (``stake``: its lines' stakes once settled, else on the hands
    of the round in play; blank once cancelled, returned or voided) and, then, the stake placed
    that went back (``returned``)."""

    pk: int
    player_name: str
    card_number: str
    box_number: int
    kind: str
    kind_label: str
    stake: str
    stake_minor: int
    status_label: str
    lines: list[LineView] = field(default_factory=list)
    returned: str = ""


@dataclass(frozen=True)
class RoundSummary:
    """One round's cards, bets and payout lines, ready for ``tables/round/_round-summary.html``.
    Its totals add up its bets' and lines' figures (``total_waiting`` and ``total_rejected``
    blank when there is none)."""

    round_id: int
    table_name: str
    number: int
    status: str
    status_label: str
    has_cards: bool
    dealer_cards: list[CardView]
    dealer_total: int | None
    dealer_is_soft: bool
    dealer_is_bust: bool
    is_hole_card_hidden: bool
    boxes: list[BoxView]
    bets: list[BetView]
    total_staked: str
    total_paid: str
    lines_awaiting_approval: int
    total_payout: str = ""
    total_waiting: str = ""
    total_rejected: str = ""
    lines_rejected: int = 0
    dealer_is_blackjack: bool = False


def _player_names(player_ids: set[int]) -> dict[int, Player]:
    return {player.pk: player for player in Player.objects.filter(pk__in=player_ids)}


def _line_view(line: PayoutLine) -> LineView:
    """A payout line in words, with the decision on it when it waited for a pit boss."""
    approval = str(line.approval_status)
    decision = line.decision if line.needs_approval and approval != ApprovalStatus.PENDING else None
    return LineView(
        pk=line.pk,
        hand=line.hand,
        outcome=line.outcome,
        outcome_label=str(OUTCOME_LABELS.get(line.outcome, line.outcome.replace("_", " "))),
        rule=line.rule,
        multiplier=f"{line.multiplier_numerator}/{line.multiplier_denominator}",
        stake=money(line.stake_minor),
        payout=money(line.paid_minor),
        paid=money(line_received_minor(line)),
        paid_minor=line_received_minor(line),
        approval_status=approval,
        # a line paying nothing (a lost bet) needed no approval and paid nothing
        approval_label="—"
        if approval == ApprovalStatus.NOT_NEEDED and not line.paid_minor
        else str(APPROVAL_LABELS.get(approval, approval)),
        is_awaiting_approval=approval == ApprovalStatus.PENDING,
        decided_by=staff_name(decision.decided_by) if decision is not None else "",
        decided_at=decision.decided_at if decision is not None else None,
        decision_reason=decision.reason if decision is not None else "",
    )


def round_summary(round_: Round) -> RoundSummary:
    """The round's cards (from its engine snapshot: the state after its last event; the dealer's
    hole card is hidden until the engine revealed it), every bet with its stake at risk and its
    payout lines (what each pays, what the player received, the decision on it), and the
    round's totals, which add up the bets' and lines' figures. Three queries (bets with players,
    lines with their decisions and deciders, the box owners); the round row must hold its
    snapshot."""
    bets = list(Bet.objects.filter(round=round_).select_related("player").order_by("box_number", "pk"))
    lines_by_bet: dict[int, list[PayoutLine]] = {}
    lines = list(
        PayoutLine.objects.filter(round=round_).select_related("decision__decided_by").order_by("pk")
    )
    for line in lines:
        lines_by_bet.setdefault(line.bet_id, []).append(line)

    state = round_state_of(round_.snapshot)
    dealer = _dealer_view(state)
    boxes = _box_views(state, bets) if state is not None else []
    bet_views = _bet_views(bets, lines_by_bet, stakes_on_hands(state))
    staked = sum(bet.stake_minor for bet in bet_views)
    waiting = sum(line.paid_minor for line in lines if line.approval_status == ApprovalStatus.PENDING)
    rejected = [line for line in lines if line.approval_status == ApprovalStatus.REJECTED]
    return RoundSummary(
        round_id=round_.pk,
        table_name=round_.table.name,
        number=round_.number,
        status=round_.status,
        status_label=status_label(round_.status),
        has_cards=state is not None and (bool(state.dealer_cards) or bool(state.boxes)),
        dealer_cards=dealer.cards,
        dealer_total=dealer.total,
        dealer_is_soft=dealer.is_soft,
        dealer_is_bust=dealer.is_bust,
        dealer_is_blackjack=dealer.is_blackjack,
        is_hole_card_hidden=dealer.is_hole_card_hidden,
        boxes=boxes,
        bets=bet_views,
        total_staked=money(staked),
        total_payout=money(sum(line.paid_minor for line in lines)),
        total_paid=money(sum(line_received_minor(line) for line in lines)),
        total_waiting=money(waiting) if waiting else "",
        total_rejected=money(sum(line.paid_minor for line in rejected)) if rejected else "",
        lines_awaiting_approval=sum(1 for line in lines if line.approval_status == ApprovalStatus.PENDING),
        lines_rejected=len(rejected),
    )


@dataclass(frozen=True)
class DealerView:
    """The dealer's cards as the summary shows them: the hole card hidden until the engine
    revealed it, the total of the cards shown (None without one)."""

    cards: list[CardView] = field(default_factory=list)
    total: int | None = None
    is_soft: bool = False
    is_bust: bool = False
    is_blackjack: bool = False
    is_hole_card_hidden: bool = False


def _dealer_view(state: RoundState | None) -> DealerView:
    """The dealer's cards of the engine state (none without one), the hole card hidden until the
    engine revealed it; the total, soft, bust and natural of the cards shown."""
    if state is None:
        return DealerView()
    is_hole_hidden = not state.is_hole_card_revealed and len(state.dealer_cards) > 1
    cards = [
        card_view_of(card, hidden=is_hole_hidden and index == 1)
        for index, card in enumerate(state.dealer_cards)
    ]
    shown = [card for index, card in enumerate(state.dealer_cards) if not (is_hole_hidden and index == 1)]
    if not shown:
        return DealerView(cards=cards, is_hole_card_hidden=is_hole_hidden)
    value = hand_value(shown)
    return DealerView(
        cards=cards,
        total=value.total,
        is_soft=value.is_soft,
        is_bust=value.is_bust,
        is_blackjack=not is_hole_hidden and is_blackjack(tuple(shown)),
        is_hole_card_hidden=is_hole_hidden,
    )


def _box_views(state: RoundState, bets: list[Bet]) -> list[BoxView]:
    """The engine state's boxes with their hands, each box named by its owner's display name (the
    owners without a bet in the round read in one query, none when every owner has one)."""
    owner_ids = {int(box.owner) for box in state.boxes if box.owner.isdigit()}
    owners = _player_names(owner_ids - {bet.player_id for bet in bets})
    owners.update({bet.player_id: bet.player for bet in bets})
    boxes = []
    for box in state.boxes:
        owner = owners.get(int(box.owner)) if box.owner.isdigit() else None
        hands = [
            HandView(
                cards=[card_view_of(card) for card in hand.cards],
                total=hand.value.total,
                is_soft=hand.value.is_soft,
                is_bust=hand.is_bust,
                is_blackjack=hand.is_blackjack,
                is_doubled=hand.is_doubled,
                is_split=hand.is_split,
                is_surrendered=hand.is_surrendered,
            )
            for hand in box.hands
        ]
        boxes.append(
            BoxView(number=box.number, owner_name=owner.display_name if owner else box.owner, hands=hands)
        )
    return boxes


def _bet_views(
    bets: list[Bet], lines_by_bet: dict[int, list[PayoutLine]], on_hands: dict[str, int]
) -> list[BetView]:
    """Each bet with its stake at risk (its lines' stakes once settled, else on the hands of the
    round in play, ``on_hands``), its payout lines, and what went back when it was returned."""
    bet_views = []
    for bet in bets:
        line_views = [_line_view(line) for line in lines_by_bet.get(bet.pk, [])]
        if lines_by_bet.get(bet.pk):
            at_risk = sum(line.stake_minor for line in lines_by_bet[bet.pk])
        else:
            at_risk = bet_at_risk_minor(
                bet_id=bet.pk, stake_minor=bet.stake_minor, status=bet.status, on_hands=on_hands
            )
        is_returned = not line_views and bet.status in RETURNED_STATUSES
        bet_views.append(
            BetView(
                pk=bet.pk,
                player_name=bet.player.display_name,
                card_number=bet.player.card_number,
                box_number=bet.box_number,
                kind=bet.kind,
                kind_label=str(BET_KIND_LABELS.get(bet.kind, bet.kind)),
                stake="" if is_returned else money(at_risk),
                stake_minor=at_risk,
                status_label=str(BET_STATUS_LABELS.get(bet.status, bet.status)),
                lines=line_views,
                returned=money(bet.stake_minor) if is_returned else "",
            )
        )
    return bet_views


__all__ = ["BetView", "BoxView", "HandView", "LineView", "RoundSummary", "round_summary"]
