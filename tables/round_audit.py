"""Reads of the round audit pages (the pit boss's and the auditor's): the filtered list of a
casino's rounds with their totals, one round's summary (cards, bets, payout lines and their
approval), its event log in words and the audit records that name it.

A round's money, the same on the list, the round's page and the dealer's console:

- staked: the stakes the round's outcome decides, doubles, splits and insurance included: once
  settled, its payout lines' stakes (each line is one bet on one hand); before that, each placed
  bet's stakes on the hands of the engine's state (a double or split adds to them), or its stake
  when it is on no hand (a side bet, an insurance, a bet before the deal);
- paid: what the players received, the payouts of the lines paid at once or approved by a pit
  boss; a line awaiting approval is not paid yet (``waiting``), a rejected one never is (its
  payout went back to the tray: ``rejected``);
- each line that waited for a pit boss shows the decision: who, when and why (``PayoutDecision``).

Money is integer minor units throughout, written for people by ``casino.money.money``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import (
    BigIntegerField,
    Count,
    Exists,
    F,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from casino.models import AuditRecord, Player
from casino.money import money
from casino.refusals import refusal_sentence
from casino.templatetags.staff import staff_name
from games.blackjack import RoundState, state_from_dict
from games.cards import Card, hand_value, is_blackjack
from tables.models import (
    OPEN_ROUND_STATUSES,
    ApprovalStatus,
    Bet,
    BetKind,
    BetStatus,
    PayoutLine,
    Round,
    RoundEvent,
    RoundStatus,
)
from tables.payout_labels import OUTCOME_LABELS

ROUNDS_PER_PAGE = 50

BET_KIND_LABELS: dict[str, Promise] = {
    BetKind.MAIN: _("Main"),
    BetKind.BEHIND: _("Bet behind"),
    BetKind.PERFECT_PAIRS: _("Perfect Pairs"),
    BetKind.TWENTY_ONE_PLUS_THREE: _("21+3"),
    BetKind.INSURANCE: _("Insurance"),
}

BET_STATUS_LABELS: dict[str, Promise] = {
    BetStatus.PLACED: _("Placed"),
    BetStatus.CANCELLED: _("Cancelled"),
    BetStatus.REFUNDED: _("Refunded (owner not playing)"),
    BetStatus.SETTLED: _("Settled"),
    BetStatus.VOIDED: _("Voided"),
}

APPROVAL_LABELS: dict[str, Promise] = {
    ApprovalStatus.NOT_NEEDED: _("Paid at once"),
    ApprovalStatus.PENDING: _("Awaiting approval"),
    ApprovalStatus.APPROVED: _("Approved"),
    ApprovalStatus.REJECTED: _("Rejected"),
}

ROUND_STATUS_LABELS: dict[str, Promise] = {
    RoundStatus.BETTING: _("Betting"),
    RoundStatus.DEALING: _("Dealing"),
    RoundStatus.INSURANCE: _("Insurance"),
    RoundStatus.PLAYERS: pgettext_lazy("round status", "Players"),
    RoundStatus.DEALER: pgettext_lazy("round status", "Dealer"),
    RoundStatus.SETTLING: _("Played, awaiting settlement"),
    RoundStatus.SETTLED: _("Settled"),
    RoundStatus.VOIDED: _("Voided"),
}

# A player's decision in words, as the event log and the console's countdown name it.
DECISION_LABELS: dict[str, Promise] = {
    "hit": pgettext_lazy("blackjack decision", "hit"),
    "stand": pgettext_lazy("blackjack decision", "stand"),
    "double": pgettext_lazy("blackjack decision", "double"),
    "split": pgettext_lazy("blackjack decision", "split"),
    "surrender": pgettext_lazy("blackjack decision", "surrender"),
}

# What happened in a round, in words (the event log's first column; any other kind shows its code).
EVENT_KIND_LABELS: dict[str, Promise] = {
    "betting_opened": pgettext_lazy("round event", "betting opened"),
    "bet_placed": pgettext_lazy("round event", "bet placed"),
    "bet_cancelled": pgettext_lazy("round event", "bet cancelled"),
    "bet_refused": pgettext_lazy("round event", "bet refused"),
    "betting_closed": pgettext_lazy("round event", "no more bets"),
    "card_dealt": pgettext_lazy("round event", "card dealt"),
    "decision": pgettext_lazy("round event", "decision"),
    "default_applied": pgettext_lazy("round event", "default applied"),
    "insurance_taken": pgettext_lazy("round event", "insurance taken"),
    "insurance_declined": pgettext_lazy("round event", "insurance declined"),
    "insurance_closed": pgettext_lazy("round event", "insurance closed"),
    "misscan": pgettext_lazy("round event", "misscan"),
    "card_corrected": pgettext_lazy("round event", "card corrected"),
    "voided": pgettext_lazy("round event", "voided"),
    "settled": pgettext_lazy("round event", "settled"),
}

SUIT_SYMBOLS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}


def status_label(status: str) -> str:
    return str(ROUND_STATUS_LABELS.get(status, status))


# ------------------------------------------------------------------------------- round money

# A payout line paid the player when it was paid at once or a pit boss approved it; one waiting
# for approval is not paid yet, a rejected one never is. The same rule in Python (a line's
# ``approval_status``) and in SQL (the list's sums); tests/tables/test_views_rounds.py holds
# the list and the round's page together.
RECEIVED_STATUSES = (ApprovalStatus.NOT_NEEDED, ApprovalStatus.APPROVED)
RECEIVED_LINES = Q(needs_approval=False) | Q(decision__status=ApprovalStatus.APPROVED)
WAITING_LINES = Q(needs_approval=True, decision__isnull=True)
REJECTED_LINES = Q(needs_approval=True, decision__status=ApprovalStatus.REJECTED)
# A bet whose stake went back to its bettor without a payout line.
RETURNED_STATUSES = (BetStatus.CANCELLED, BetStatus.REFUNDED, BetStatus.VOIDED)
# Rounds whose bets are dealt and not settled: their stakes at risk are on the engine's hands.
IN_PLAY_STATUSES = tuple(status for status in OPEN_ROUND_STATUSES if status != RoundStatus.BETTING)


def line_received_minor(line: PayoutLine) -> int:
    """What ``line`` paid its player (``paid_minor`` is what the rules pay it)."""
    return line.paid_minor if line.approval_status in RECEIVED_STATUSES else 0


def stakes_on_hands(state: RoundState | None) -> dict[str, int]:
    """Each bet's stakes on the hands of a round's engine state, by engine bet id (a double or a
    split adds to them; bets on no hand are not there)."""
    stakes: dict[str, int] = {}
    for box in state.boxes if state is not None else ():
        for hand in box.hands:
            for stake in hand.stakes:
                stakes[stake.bet_id] = stakes.get(stake.bet_id, 0) + stake.stake_minor
    return stakes


def bet_at_risk_minor(*, bet_id: int, stake_minor: int, status: str, on_hands: dict[str, int]) -> int:
    """The stake a bet of an unsettled round has at risk: its stakes on the hands (``on_hands``,
    :func:`stakes_on_hands`), else its stake (a side bet, an insurance, a bet before the deal);
    nothing once cancelled, returned or voided."""
    if status != BetStatus.PLACED:
        return 0
    return on_hands.get(str(bet_id), stake_minor)


def _state_of(snapshot: dict[str, Any] | None) -> RoundState | None:
    if not snapshot:
        return None
    try:
        return state_from_dict(snapshot)
    except Exception:  # a snapshot the engine cannot read shows no cards
        return None


# ------------------------------------------------------------------------------------ the list


def _sum_of(queryset: QuerySet[Any], column: str) -> Subquery:
    """A correlated sub-select of one round's sum of ``column`` (one per annotation: sums over
    two joined tables in one GROUP BY would multiply each other's rows)."""
    return Subquery(
        queryset.filter(round=OuterRef("pk"))
        .order_by()
        .values("round")
        .annotate(total=Sum(column))
        .values("total")[:1],
        output_field=BigIntegerField(),
    )


def round_list_for_audit(
    *,
    casino_id: int,
    table_name: str = "",
    dealer_username: str = "",
    player: str = "",
    opened_from: dt.datetime | None = None,
    opened_to: dt.datetime | None = None,
    min_total_stake_minor: int | None = None,
    min_payout_minor: int | None = None,
    status: str = "",
) -> QuerySet[Round]:
    """The casino's rounds, newest first, each annotated with ``bets_count`` (bets not
    cancelled), ``total_staked_minor`` (the payout lines' stakes once settled, doubles, splits and
    insurance included; before that the stakes of the bets placed, which :func:`round_rows`
    completes with the doubles and splits of a round in play), ``total_paid_minor`` (what the
    players received), ``waiting_minor`` and ``rejected_minor`` (payouts awaiting a pit boss, and
    rejected), ``largest_payout_minor`` and ``is_awaiting_approval`` (a payout line waits).

    Filters (each optional): the table's name and the dealer's username (case-insensitive, exact),
    a player (card number exactly, or part of the name) who had a bet in the round, ``opened_at``
    from (inclusive) and to (exclusive), a minimum total stake, a minimum single payout line
    (``paid_minor``), the status. The engine snapshot is deferred (it is most of the row's bytes).
    """
    bets = Bet.objects.exclude(status=BetStatus.CANCELLED)
    lines = PayoutLine.objects.all()
    rounds = (
        Round.objects.filter(table__casino_id=casino_id)
        .select_related("table", "dealer")
        .defer("snapshot", "accepts_bets_behind", "awaiting_correction")
        .annotate(
            bets_count=Coalesce(
                Subquery(
                    bets.filter(round=OuterRef("pk"))
                    .order_by()
                    .values("round")
                    .annotate(count=Count("pk"))
                    .values("count")[:1],
                    output_field=BigIntegerField(),
                ),
                Value(0),
            ),
            total_staked_minor=Coalesce(
                _sum_of(lines, "stake_minor"),
                _sum_of(bets.filter(status=BetStatus.PLACED), "stake_minor"),
                Value(0),
                output_field=BigIntegerField(),
            ),
            total_paid_minor=Coalesce(
                _sum_of(lines.filter(RECEIVED_LINES), "paid_minor"), Value(0), output_field=BigIntegerField()
            ),
            waiting_minor=Coalesce(
                _sum_of(lines.filter(WAITING_LINES), "paid_minor"), Value(0), output_field=BigIntegerField()
            ),
            rejected_minor=Coalesce(
                _sum_of(lines.filter(REJECTED_LINES), "paid_minor"), Value(0), output_field=BigIntegerField()
            ),
            largest_payout_minor=Subquery(
                lines.filter(round=OuterRef("pk"))
                .order_by()
                .values("round")
                .annotate(largest=Max("paid_minor"))
                .values("largest")[:1],
                output_field=BigIntegerField(),
            ),
            is_awaiting_approval=Exists(PayoutLine.objects.filter(WAITING_LINES, round=OuterRef("pk"))),
        )
    )
    if table_name:
        rounds = rounds.filter(table__name__iexact=table_name.strip())
    if dealer_username:
        rounds = rounds.filter(dealer__username__iexact=dealer_username.strip())
    if player:
        wanted = player.strip()
        players = Player.objects.filter(casino_id=casino_id).filter(
            Q(card_number=wanted) | Q(display_name__icontains=wanted)
        )
        rounds = rounds.filter(
            Exists(Bet.objects.filter(round=OuterRef("pk"), player__in=players.values("pk")))
        )
    if opened_from is not None:
        rounds = rounds.filter(opened_at__gte=opened_from)
    if opened_to is not None:
        rounds = rounds.filter(opened_at__lt=opened_to)
    if min_total_stake_minor is not None:
        rounds = rounds.filter(total_staked_minor__gte=min_total_stake_minor)
    if min_payout_minor is not None:
        rounds = rounds.filter(
            Exists(PayoutLine.objects.filter(round=OuterRef("pk"), paid_minor__gte=min_payout_minor))
        )
    if status:
        rounds = rounds.filter(status=status)
    return rounds.order_by(F("opened_at").desc(), F("pk").desc())


@dataclass(frozen=True)
class RoundRow:
    """One line of the list: the round (with its table and dealer) and its totals in words
    (``waiting`` and ``rejected`` blank when there is none)."""

    round: Round
    status_label: str
    bets_count: int
    total_staked: str
    total_paid: str
    waiting: str
    rejected: str
    is_awaiting_approval: bool


def _staked_in_play(rounds: list[Round]) -> dict[int, int]:
    """The stakes at risk of the rounds in play among ``rounds`` (a few: one per table at most),
    from their engine states and placed bets: two queries, none without such a round."""
    ids = [round_.pk for round_ in rounds if round_.status in IN_PLAY_STATUSES]
    if not ids:
        return {}
    on_hands = {
        round_id: stakes_on_hands(_state_of(snapshot))
        for round_id, snapshot in Round.objects.filter(pk__in=ids).values_list("pk", "snapshot")
    }
    staked = dict.fromkeys(ids, 0)
    for round_id, bet_id, stake_minor, status in Bet.objects.filter(
        round_id__in=ids, status=BetStatus.PLACED
    ).values_list("round_id", "pk", "stake_minor", "status"):
        staked[round_id] += bet_at_risk_minor(
            bet_id=bet_id, stake_minor=stake_minor, status=status, on_hands=on_hands[round_id]
        )
    return staked


def round_rows(rounds: Iterable[Round]) -> list[RoundRow]:
    """The list's lines of rounds from :func:`round_list_for_audit` (its annotations), a round in
    play with its stakes at risk as its page shows them."""
    rounds = list(rounds)
    in_play = _staked_in_play(rounds)
    rows = []
    for round_ in rounds:
        waiting: int = round_.waiting_minor  # type: ignore[attr-defined]
        rejected: int = round_.rejected_minor  # type: ignore[attr-defined]
        rows.append(
            RoundRow(
                round=round_,
                status_label=status_label(round_.status),
                bets_count=round_.bets_count,  # type: ignore[attr-defined]
                total_staked=money(in_play.get(round_.pk, round_.total_staked_minor)),  # type: ignore[attr-defined]
                total_paid=money(round_.total_paid_minor),  # type: ignore[attr-defined]
                waiting=money(waiting) if waiting else "",
                rejected=money(rejected) if rejected else "",
                is_awaiting_approval=round_.is_awaiting_approval,  # type: ignore[attr-defined]
            )
        )
    return rows


# --------------------------------------------------------------------------------- the summary


@dataclass(frozen=True)
class CardView:
    code: str
    rank: str
    suit_symbol: str
    is_red: bool
    is_hidden: bool = False


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


def card_view(code: str) -> CardView:
    """A card code of the table's state (``TS``) as the screens draw it: ``10♠``, red for hearts
    and diamonds."""
    return _card(Card.parse(code))


def _card(card: Card, hidden: bool = False) -> CardView:
    if hidden:
        return CardView(code="", rank="", suit_symbol="", is_red=False, is_hidden=True)
    rank = "10" if card.rank == "T" else card.rank
    return CardView(
        code=card.code, rank=rank, suit_symbol=SUIT_SYMBOLS[card.suit], is_red=card.suit in ("H", "D")
    )


def _player_names(player_ids: set[int]) -> dict[int, Player]:
    return {player.pk: player for player in Player.objects.filter(pk__in=player_ids)}


def _line_view(line: PayoutLine) -> LineView:
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

    state = _state_of(round_.snapshot)
    dealer_cards: list[CardView] = []
    boxes: list[BoxView] = []
    dealer_total: int | None = None
    dealer_is_soft = dealer_is_bust = dealer_is_blackjack = is_hole_hidden = False
    if state is not None:
        is_hole_hidden = not state.is_hole_card_revealed and len(state.dealer_cards) > 1
        for index, card in enumerate(state.dealer_cards):
            dealer_cards.append(_card(card, hidden=is_hole_hidden and index == 1))
        shown = [card for index, card in enumerate(state.dealer_cards) if not (is_hole_hidden and index == 1)]
        if shown:
            value = hand_value(shown)
            dealer_total, dealer_is_soft, dealer_is_bust = value.total, value.is_soft, value.is_bust
            dealer_is_blackjack = not is_hole_hidden and is_blackjack(tuple(shown))
        owner_ids = {int(box.owner) for box in state.boxes if box.owner.isdigit()}
        owners = _player_names(owner_ids - {bet.player_id for bet in bets})
        owners.update({bet.player_id: bet.player for bet in bets})
        for box in state.boxes:
            owner = owners.get(int(box.owner)) if box.owner.isdigit() else None
            hands = [
                HandView(
                    cards=[_card(card) for card in hand.cards],
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

    on_hands = stakes_on_hands(state)
    bet_views = []
    staked = 0
    for bet in bets:
        line_views = [_line_view(line) for line in lines_by_bet.get(bet.pk, [])]
        if lines_by_bet.get(bet.pk):
            at_risk = sum(line.stake_minor for line in lines_by_bet[bet.pk])
        else:
            at_risk = bet_at_risk_minor(
                bet_id=bet.pk, stake_minor=bet.stake_minor, status=bet.status, on_hands=on_hands
            )
        staked += at_risk
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
    waiting = sum(line.paid_minor for line in lines if line.approval_status == ApprovalStatus.PENDING)
    rejected = [line for line in lines if line.approval_status == ApprovalStatus.REJECTED]
    return RoundSummary(
        round_id=round_.pk,
        table_name=round_.table.name,
        number=round_.number,
        status=round_.status,
        status_label=status_label(round_.status),
        has_cards=state is not None and (bool(state.dealer_cards) or bool(state.boxes)),
        dealer_cards=dealer_cards,
        dealer_total=dealer_total,
        dealer_is_soft=dealer_is_soft,
        dealer_is_bust=dealer_is_bust,
        dealer_is_blackjack=dealer_is_blackjack,
        is_hole_card_hidden=is_hole_hidden,
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


# ------------------------------------------------------------------------------- the event log


@dataclass(frozen=True)
class EventView:
    sequence: int
    created_at: dt.datetime
    kind: str
    kind_label: str
    actor_name: str
    role: str
    terminal_name: str
    description: str
    # A player's command (a bet, a decision at the terminal): who, by name and card number.
    player_name: str = ""
    player_card: str = ""


def _card_text(code: object) -> str:
    try:
        card = Card.parse(str(code))
    except Exception:  # a misscan may carry anything the reader sent
        return str(code)
    return f"{'10' if card.rank == 'T' else card.rank}{SUIT_SYMBOLS[card.suit]}"


def _player_text(engine_player: object, names: dict[str, str]) -> str:
    return names.get(str(engine_player), str(engine_player))


def event_description(kind: str, payload: dict[str, Any], names: dict[str, str]) -> str:
    """A short readable line for one event's payload: the card and where it went, the bet, the
    decision, the reason. ``names`` maps the engine's player ids to display names."""
    action = payload.get("action") or {}
    if kind == "betting_opened":
        return str(
            _("shoe #%(shoe)s, configuration #%(config)s")
            % {"shoe": payload.get("shoe_id"), "config": payload.get("config_id")}
        )
    if kind == "bet_placed":
        # Bets enter the log at "no more bets" (recorded by whoever closed betting), in placing
        # order; the payload keeps the moment each was placed.
        bet = action.get("bet") or {}
        fields = {
            "player": _player_text(bet.get("player"), names),
            "kind": BET_KIND_LABELS.get(str(bet.get("kind")), bet.get("kind")),
            "stake": money(bet.get("stake_minor")),
            "box": bet.get("box"),
        }
        placed = payload.get("placed_at")
        if not placed:
            return str(_("%(player)s: %(kind)s %(stake)s on box %(box)s") % fields)
        placed_at = timezone.localtime(dt.datetime.fromisoformat(str(placed)))
        return str(
            _("%(player)s: %(kind)s %(stake)s on box %(box)s, placed at %(time)s (logged at no more bets)")
            % {**fields, "time": date_format(placed_at, "H:i:s")}
        )
    if kind in ("bet_cancelled", "bet_refused"):
        detail = payload.get("message") or payload.get("status") or payload.get("code") or ""
        return str(_("bet %(bet)s: %(detail)s") % {"bet": payload.get("bet_id"), "detail": detail})
    if kind == "card_dealt":
        dealt: dict[str, Any] = next(
            (event for event in payload.get("events", []) if event.get("type") == "card_dealt"), {}
        )
        card = _card_text(action.get("card", dealt.get("card", "")))
        if dealt.get("to") == "dealer":
            if dealt.get("is_face_up") is False:
                text = _("%(card)s to the dealer, face down") % {"card": card}
            else:
                text = _("%(card)s to the dealer") % {"card": card}
        elif dealt.get("box") is not None:
            text = _("%(card)s to box %(box)s, hand %(hand)s") % {
                "card": card,
                "box": dealt.get("box"),
                "hand": (dealt.get("hand") or 0) + 1,
            }
        else:
            text = card
        # A virtual shoe deals what the round expects as soon as it does, within the command that
        # made it expect a card: the event is recorded under that command's actor (a player's
        # last decision, the dealer's "no more bets"), not under someone who dealt it.
        if payload.get("source") == "virtual_shoe":
            return str(_("%(dealt)s, dealt by the virtual shoe") % {"dealt": text})
        return str(text)
    if kind in ("decision", "default_applied") and action.get("type") in (
        "hit",
        "stand",
        "double",
        "split",
        "surrender",
    ):
        decision = str(action.get("type"))
        text = _("box %(box)s: %(decision)s") % {
            "box": action.get("box"),
            "decision": DECISION_LABELS.get(decision, decision),
        }
        if kind == "default_applied":
            text = _("%(text)s (by default, the time ran out)") % {"text": text}
        return str(text)
    if kind == "default_applied":
        return str(_("by default: %(default)s") % {"default": payload.get("default") or action.get("type")})
    if kind in ("insurance_taken", "insurance_declined", "insurance_closed"):
        if kind == "insurance_closed":
            return str(_("insurance closed"))
        return str(
            _("%(player)s: %(choice)s for bet %(bet)s")
            % {
                "player": _player_text(action.get("player"), names),
                "choice": _("insurance taken") if kind == "insurance_taken" else _("insurance declined"),
                "bet": action.get("bet_id"),
            }
        )
    if kind == "betting_closed":
        closed: dict[str, Any] = next(
            (event for event in payload.get("events", []) if event.get("type") == "betting_closed"), {}
        )
        boxes = ", ".join(str(box) for box in closed.get("boxes", []))
        return str(_("boxes playing: %(boxes)s") % {"boxes": boxes or "-"})
    if kind == "misscan":
        return str(
            _("card %(card)s refused: %(reason)s")
            % {
                "card": _card_text(payload.get("card", "")),
                "reason": refusal_sentence(str(payload.get("reason", ""))),
            }
        )
    if kind == "card_corrected":
        corrected = payload.get("card") or action.get("card")
        return str(
            _("corrected to %(card)s: %(reason)s")
            % {
                "card": _card_text(corrected) if corrected else _("no card"),
                "reason": payload.get("reason", ""),
            }
        )
    if kind == "voided":
        return str(
            _("voided (was %(status)s): %(reason)s")
            % {
                "status": status_label(str(payload.get("status_before", ""))),
                "reason": payload.get("reason", ""),
            }
        )
    if kind == "settled":
        # As the round settled: what the lines pay by the rules, those awaiting approval included
        # (the summary says what the players received).
        totals = payload.get("totals") or {}
        return str(
            _("%(lines)s payout lines, staked %(staked)s, payouts %(paid)s, %(waiting)s awaiting approval")
            % {
                "lines": totals.get("lines", 0),
                "staked": money(totals.get("stake_minor", 0)),
                "paid": money(totals.get("paid_minor", 0)),
                "waiting": totals.get("awaiting_approval", 0),
            }
        )
    if action.get("type"):
        return str(action["type"]).replace("_", " ")
    return ", ".join(sorted(payload))


def round_event_log(round_: Round) -> list[EventView]:
    """The round's events in sequence order, each with who gave it (a player by name and card
    number, at their terminal) and a short readable description (the engine snapshots are not
    read)."""
    events = list(
        RoundEvent.objects.filter(round=round_)
        .defer("snapshot")
        .select_related("terminal", "player")
        .order_by("sequence")
    )
    players = Bet.objects.filter(round=round_).values_list("player_id", "player__display_name")
    names = {str(player_id): name for player_id, name in players}
    return [
        EventView(
            sequence=event.sequence,
            created_at=event.created_at,
            kind=event.kind,
            kind_label=str(EVENT_KIND_LABELS.get(event.kind, event.kind.replace("_", " "))),
            actor_name=event.actor_name,
            role=event.role,
            terminal_name=event.terminal.name if event.terminal else "",
            description=event_description(event.kind, event.payload or {}, names),
            player_name=event.player.display_name if event.player else "",
            player_card=event.player.card_number if event.player else "",
        )
        for event in events
    ]


def round_audit_records(round_: Round) -> QuerySet[AuditRecord]:
    """The audit records that name the round (``tables.round`` with its id), in chain order."""
    return (
        AuditRecord.objects.filter(object_type="tables.round", object_id=str(round_.pk))
        .only("sequence", "action", "actor_name", "role", "recorded_at")
        .order_by("sequence")
    )


__all__ = [
    "ROUNDS_PER_PAGE",
    "RoundSummary",
    "event_description",
    "round_audit_records",
    "round_event_log",
    "round_list_for_audit",
    "round_rows",
    "round_summary",
]
