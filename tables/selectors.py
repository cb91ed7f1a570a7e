"""Reads of the live tables: the table state the terminals and the dealer console show, the
payouts and configuration changes that wait for a pit boss (the round list for audit is
``tables.round_audit.listing``)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, Q, QuerySet, Sum
from django.utils import timezone

from casino.four_eyes import may_decide
from casino.models import Approval, Table
from games.blackjack import RoundState, current_turn, legal_actions, next_card_target, state_from_dict
from games.cards import Card, hand_value, is_blackjack
from tables.models import Bet, BetKind, BetStatus, Box, PayoutLine, Round, Seat, Shoe, TableConfigVersion
from tables.payout_approvals import PAYOUT_SUBJECT
from tables.services.shoes import shoe_and_config_current, shuffle_due


def round_current(table: Table) -> Round | None:
    """The open round of a table, else the last one: the last one either way, as rounds open one
    at a time, each after the one before (``round_open``)."""
    return rounds_latest_first(table).first()


def rounds_latest_first(table: Table) -> QuerySet[Round]:
    """The table's rounds, the current one (``round_current``) first."""
    return Round.objects.filter(table=table).order_by("-number")


def _cards(cards: list[str], *, is_split: bool = False) -> dict[str, Any]:
    """A hand's cards with its total and what the screens say of it: soft, bust, or a natural
    (``is_blackjack``: two cards making 21, never after a split, rules 5.5)."""
    parsed = tuple(Card.parse(code) for code in cards)
    value = hand_value(parsed)
    return {
        "cards": cards,
        "total": value.total,
        "is_soft": value.is_soft,
        "is_bust": value.is_bust,
        "is_blackjack": not is_split and is_blackjack(parsed),
    }


# The crowd behind a box: the bets behind it and the insurance of those. The console shows them one
# by one; a terminal's state as totals per box and kind (``behind_as_totals``), so that it does not
# grow with the crowd, and with a player token the player's own one by one (``behind_of_player``).
BEHIND_BETS = Q(kind=BetKind.BEHIND) | Q(kind=BetKind.INSURANCE, insures__kind=BetKind.BEHIND)


def table_state(*, table: Table, behind_as_totals: bool = False) -> dict[str, Any]:
    """Everything a screen of the table shows, as JSON-ready data: configuration (limits,
    settings), boxes (owner, seats with win streaks, bets, hands with cards and totals), the
    dealer's cards (hole card hidden until revealed), whose turn, the decision deadline, shuffle
    due, the shoe's commitment, and the misscan the round waits on. With ``behind_as_totals`` (the
    terminals' state) a box's seats and bets are its owner's, and its crowd is counted in
    ``behind``: the players seated behind it, and the count and stake of its bets behind (and
    their insurance) per kind."""
    return table_state_of_round(table=table, round_=round_current(table), behind_as_totals=behind_as_totals)


def seconds_left(deadline: dt.datetime | None) -> int | None:
    """Whole seconds until ``deadline`` (0 once it passed), None without one."""
    return max(0, int((deadline - timezone.now()).total_seconds())) if deadline else None


def table_state_of_round(
    *,
    table: Table,
    round_: Round | None,
    in_use: tuple[Shoe | None, TableConfigVersion | None] | None = None,
    bettor_names: bool = False,
    behind_as_totals: bool = False,
) -> dict[str, Any]:
    """``table_state`` with the round already read (``round_current``), and the shoe and
    configuration in use too when given (``in_use``, from ``shoe_and_config_current``): the
    console reads them once, for the state and for its own use. With ``bettor_names`` each bet
    has its bettor's ``player_name`` too (read with the bets): the console names them; the
    terminals' state carries none."""
    shoe, config = in_use if in_use is not None else shoe_and_config_current(table)
    boxes, seats = _boxes_and_seats(table)
    bets: dict[int, list[dict[str, Any]]] = {}
    behind: dict[int, list[dict[str, Any]]] | None = {} if behind_as_totals else None
    state = None
    if round_ is not None:
        if behind_as_totals:
            bets = _bets_by_box(Bet.objects.filter(round=round_).exclude(BEHIND_BETS), bettor_names)
            behind = _behind_totals(round_)
        else:
            bets = _bets_by_box(Bet.objects.filter(round=round_), bettor_names)
        if round_.snapshot:
            state = state_from_dict(round_.snapshot)
    return {
        "table": {"id": table.pk, "name": table.name, "is_open": table.is_open},
        "config": (
            {"version": config.number, **config.values(), "rule_set": config.rule_set_version.rule_set.name}
            if config
            else None
        ),
        "shoe": (
            {
                "id": shoe.pk,
                "kind": shoe.kind,
                "decks": shoe.decks,
                "commitment": shoe.commitment,
                "rounds_dealt": shoe.rounds_dealt,
            }
            if shoe
            else None
        ),
        "shuffle_due": shuffle_due(table, shoe, config),
        "round": _round_of_state(round_, state) if round_ else None,
        "boxes": _box_rows(boxes, seats, bets, state, behind),
    }


# The boxes of a table (owner, whether it accepts bets behind) and the seats of each (player, name,
# win streak), by box number.
BoxesRead = dict[int, tuple[int | None, bool]]
SeatsRead = dict[int, list[tuple[int, str, int]]]


def _boxes_and_seats(table: Table) -> tuple[BoxesRead, SeatsRead]:
    """The table's boxes with their seats, in one query (one row per seat, a box without one
    once), as plain rows grouped by box in one pass: a busy round has thousands of bets behind
    its boxes, and a model instance per row cost most of the time of ``table_state_of_round``."""
    boxes: BoxesRead = {}
    seats: SeatsRead = {}
    for number, owner_id, accepts, player_id, display_name, win_streak in (
        Box.objects.filter(table=table)
        .order_by("number", "seats__id")
        .values_list(
            "number",
            "owner_id",
            "accepts_bets_behind",
            "seats__player_id",
            "seats__player__display_name",
            "seats__win_streak",
        )
    ):
        boxes[number] = (owner_id, accepts)
        if player_id is not None:
            seats.setdefault(number, []).append((player_id, display_name, win_streak))
    return boxes, seats


def _bets_by_box(bets_of_round: QuerySet[Bet], bettor_names: bool) -> dict[int, list[dict[str, Any]]]:
    """The bets (of a round) but those cancelled, in placing order, as plain rows by box number
    (one query), each with its bettor's ``player_name`` when ``bettor_names``."""
    bets: dict[int, list[dict[str, Any]]] = {}
    fields = ["pk", "box_number", "player_id", "kind", "stake_minor", "status"]
    for bet_id, box_number, player_id, kind, stake_minor, status, *name in (
        bets_of_round.exclude(status=BetStatus.CANCELLED)
        .order_by("pk")
        .values_list(*fields, *(["player__display_name"] if bettor_names else []))
    ):
        bet = {
            "bet_id": bet_id,
            "player_id": player_id,
            "kind": kind,
            "stake_minor": stake_minor,
            "status": status,
        }
        if bettor_names:
            bet["player_name"] = name[0]
        bets.setdefault(box_number, []).append(bet)
    return bets


def _behind_totals(round_: Round) -> dict[int, list[dict[str, Any]]]:
    """The count and stake of the round's bets behind each box (and their insurance), but those
    cancelled, per kind, by box number (one query)."""
    totals: dict[int, list[dict[str, Any]]] = {}
    for box_number, kind, count, stake_minor in (
        Bet.objects.filter(BEHIND_BETS, round=round_)
        .exclude(status=BetStatus.CANCELLED)
        .values_list("box_number", "kind")
        .annotate(count=Count("pk"), stake_minor=Sum("stake_minor"))
        .order_by("box_number", "kind")
    ):
        totals.setdefault(box_number, []).append({"kind": kind, "count": count, "stake_minor": stake_minor})
    return totals


def _seat_row(player_id: int, display_name: str, win_streak: int, owner: int | None) -> dict[str, Any]:
    return {
        "player_id": player_id,
        "display_name": display_name,
        "is_owner": player_id == owner,
        "win_streak": win_streak,
    }


def _box_rows(
    boxes: BoxesRead,
    seats: SeatsRead,
    bets: dict[int, list[dict[str, Any]]],
    state: RoundState | None,
    behind: dict[int, list[dict[str, Any]]] | None,
) -> list[dict[str, Any]]:
    """Each box of the table with its owner, seats, bets and, when the round's engine ``state``
    plays it, its hands with their cards, totals and stakes. With ``behind`` (the totals of the
    bets behind, by box), only the owner's seat and, in ``behind``, the players seated behind the
    box counted and those totals."""
    playing = {box.number: box for box in state.boxes} if state is not None else {}
    box_rows = []
    for box_number, (owner, accepts_behind) in boxes.items():
        engine_box = playing.get(box_number)
        seat_rows = [_seat_row(*seat, owner) for seat in seats.get(box_number, [])]
        counted: dict[str, Any] = {}
        if behind is not None:
            owners = [seat for seat in seat_rows if seat["is_owner"]]
            counted = {
                "behind": {"players": len(seat_rows) - len(owners), "bets": behind.get(box_number, [])}
            }
            seat_rows = owners
        box_rows.append(
            {
                "number": box_number,
                "owner_id": owner,
                "accepts_bets_behind": accepts_behind,
                "seats": seat_rows,
                **counted,
                "bets": bets.get(box_number, []),
                "hands": [
                    {
                        **_cards([card.code for card in hand.cards], is_split=hand.is_split),
                        "stake_minor": sum(stake.stake_minor for stake in hand.stakes),
                        "is_doubled": hand.is_doubled,
                        "is_finished": hand.is_finished,
                    }
                    for hand in (engine_box.hands if engine_box else ())
                ],
            }
        )
    return box_rows


def behind_of_player(*, table: Table, round_id: int | None, player_id: int) -> dict[int, dict[str, Any]]:
    """A player's own part of the crowd behind the table's boxes, which the terminals' state
    counts only (``behind_as_totals``): by box number, their ``seats`` behind it and their
    ``bets`` behind it in round ``round_id`` (and the insurance of those), as ``table_state``
    shows them. Two queries."""
    own: dict[int, dict[str, Any]] = {}
    for box_number, display_name, win_streak in (
        Seat.objects.filter(box__table=table, player_id=player_id)
        .exclude(box__owner_id=player_id)
        .values_list("box__number", "player__display_name", "win_streak")
    ):
        own.setdefault(box_number, {"seats": [], "bets": []})["seats"].append(
            _seat_row(player_id, display_name, win_streak, None)
        )
    if round_id is not None:
        bets = Bet.objects.filter(BEHIND_BETS, round_id=round_id, player_id=player_id)
        for box_number, rows in _bets_by_box(bets, bettor_names=False).items():
            own.setdefault(box_number, {"seats": [], "bets": []})["bets"] = rows
    return own


def _round_of_state(round_: Round, state: RoundState | None) -> dict[str, Any]:
    """The round as the table's state shows it: its status, decision deadline, whose turn with
    the decisions open to them, the card the engine expects next, the misscan it waits on, and
    the dealer's cards (the hole card hidden, and no total, until revealed)."""
    turn = current_turn(state) if state is not None else None
    dealer_cards: list[str | None] = []
    if state is not None:
        for index, card in enumerate(state.dealer_cards):
            dealer_cards.append(card.code if index == 0 or state.is_hole_card_revealed else None)
    target = next_card_target(state) if state is not None else None
    return {
        "id": round_.pk,
        "number": round_.number,
        "status": round_.status,
        "decision_deadline_at": round_.decision_deadline_at,
        "seconds_left": seconds_left(round_.decision_deadline_at),
        "turn": (
            {
                "box": turn[0],
                "hand": turn[1],
                "decisions": [action.type for action in legal_actions(state)],
            }
            if turn and state is not None
            else None
        ),
        "card_expected": (
            {"to": target.to, "box": target.box, "hand": target.hand, "is_face_up": target.is_face_up}
            if target
            else None
        ),
        "awaiting_correction": round_.awaiting_correction,
        "dealer": (
            {
                "cards": dealer_cards,
                **(_cards([c for c in dealer_cards if c]) if state and state.is_hole_card_revealed else {}),
            }
        ),
    }


# What a held payout's four-eyes approval names as its subject: the payout line.


@dataclass(frozen=True)
class HeldLine:
    """A payout line that waits for a pit boss, with its approval and where it was played: the
    box and the hand (1, 2... after a split; None for a side bet or insurance)."""

    line: PayoutLine
    approval: Approval
    box_number: int
    hand_number: int | None
    may_decide: bool


@dataclass(frozen=True)
class HeldBox:
    number: int
    lines: list[HeldLine]


@dataclass(frozen=True)
class HeldRound:
    """A settled round's held payout lines, box by box, for one decision of them all."""

    round: Round
    boxes: list[HeldBox]

    @property
    def lines(self) -> list[HeldLine]:
        return [held for box in self.boxes for held in box.lines]

    @property
    def may_decide(self) -> bool:
        """Whether the person reading may decide every line (the round's dealer and whoever
        settled it may decide none)."""
        return all(held.may_decide for held in self.lines)


def held_payouts(*, casino_id: int, user: User | AnonymousUser) -> list[HeldRound]:
    """The casino's payout lines waiting for a pit boss (their pending approvals), by round (the
    oldest waiting first), box and hand, with whether ``user`` may decide them
    (``casino.four_eyes.may_decide``). Two queries."""
    approvals = {
        int(approval.subject_id): approval
        for approval in Approval.objects.filter(
            casino_id=casino_id,
            kind="payout",
            subject_type=PAYOUT_SUBJECT,
            status=Approval.Status.PENDING,
        ).order_by("pk")
    }
    lines = PayoutLine.objects.filter(pk__in=sorted(approvals)).select_related(
        "round__table", "round__config", "round__dealer", "bet__player"
    )
    rounds: dict[int, list[PayoutLine]] = {}
    for line in sorted(lines, key=lambda line: approvals[line.pk].pk):
        rounds.setdefault(line.round_id, []).append(line)
    held: list[HeldRound] = []
    for round_lines in rounds.values():
        boxes: dict[int, list[HeldLine]] = {}
        # hand by hand, then the box's side bets and insurance (no hand)
        by_place = sorted(
            round_lines, key=lambda line: (line.bet.box_number, line.hand is None, line.hand or 0, line.pk)
        )
        for line in by_place:
            approval = approvals[line.pk]
            boxes.setdefault(line.bet.box_number, []).append(
                HeldLine(
                    line=line,
                    approval=approval,
                    box_number=line.bet.box_number,
                    hand_number=None if line.hand is None else line.hand + 1,
                    may_decide=may_decide(approval=approval, user=user),
                )
            )
        held.append(
            HeldRound(
                round=round_lines[0].round,
                boxes=[HeldBox(number, box_lines) for number, box_lines in sorted(boxes.items())],
            )
        )
    return held


# The kinds of approval of the tables' configuration (casino/controls.toml): what
# /operator/approvals/ lists.
CONFIG_APPROVAL_KINDS = ("table_config", "rule_set_version", "paytable_version")


def config_approvals_waiting(*, casino_id: int) -> QuerySet[Approval]:
    """The casino's configuration changes waiting for a second person (a table's proposal, a
    draft rule-set or paytable version), oldest first."""
    return Approval.objects.filter(
        casino_id=casino_id, status=Approval.Status.PENDING, kind__in=CONFIG_APPROVAL_KINDS
    ).order_by("pk")
