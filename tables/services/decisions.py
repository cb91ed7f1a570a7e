"""Player decisions and insurance (rules/blackjack.md 3.3, 4.3, 5): the engine decides what is
legal and what each choice costs; this module holds the added stakes on the wallet.
"""

from __future__ import annotations

from collections.abc import Callable

from django.utils import timezone

from casino.actors import Actor
from casino.errors import game
from casino.models import Player
from casino.table_access import require_player
from games.blackjack import (
    CloseInsurance,
    Decision,
    DeclineInsurance,
    Double,
    Hit,
    Split,
    Stand,
    Surrender,
    TakeInsurance,
    apply,
)
from games.blackjack.events import InsuranceTaken, StakeAdded
from tables.errors import (
    AwaitingCorrectionError,
    DecisionDeadlinePassedError,
    DecisionsFromTerminalsError,
    InsuranceNotOfferedError,
    NoSuchBetError,
    NotBetOwnerError,
    NotBoxOwnerError,
    NotSeatedError,
    TableIllegalActionError,
    TableNotYourTurnError,
)
from tables.models import Bet, BetKind, BetStatus, Round, RoundStatus
from tables.services.commands import (
    AppliedDefault,
    Work,
    auto_deal,
    bet_hold,
    engine_player,
    finish,
    round_command,
    round_state,
    step,
)
from tables.services.common import require_dealer_or_reader
from tables.services.config import config_get

# The decisions a box owner may name (rules 5.1-5.4, 5.7); the engine says which are legal now.
DECISIONS: dict[str, type[Decision]] = {
    "hit": Hit,
    "stand": Stand,
    "double": Double,
    "split": Split,
    "surrender": Surrender,
}


def _decider(actor: Actor, round_: Round, player_id: Callable[[], int | None]) -> Player:
    """Whose decision it is: the player logged in at the terminal; or, at a table whose
    configuration has the dealer record decisions (``dealer_records_decisions``: a player's
    signal at a live table), the player ``player_id()`` names (read only then) on the word of
    the table's dealer.
    Refuses ``decisions_from_terminals`` at other tables, and the dealer checks of
    ``require_dealer_or_reader``."""
    if actor.player is not None or actor.user is None:
        return require_player(actor, round_.table)
    require_dealer_or_reader(actor, round_.table)
    if not config_get(round_.config_id).dealer_records_decisions:
        raise DecisionsFromTerminalsError("At this table the players decide at their terminals.")
    named = player_id()
    player = (
        Player.objects.filter(pk=named, casino_id=round_.table.casino_id).first()
        if named is not None
        else None
    )
    if player is None:
        raise NotSeatedError("no such player at this table")
    return player


def _box_owner(round_: Round, box_number: int) -> int | None:
    """The player id of the box's owner in this round (the engine's seat), or None."""
    owner = next((box.owner for box in round_state(round_).boxes if box.number == box_number), None)
    return int(owner) if owner else None


def _insured_bet(round_: Round, bet_id: int, player_id: int) -> Bet:
    insured = Bet.objects.filter(pk=bet_id, round=round_, status=BetStatus.PLACED).first()
    if insured is None:
        raise NoSuchBetError(f"no bet {bet_id} in this round")
    if insured.player_id != player_id:
        raise NotBetOwnerError("only the bettor insures a bet")
    return insured


def insurance_decide(
    *,
    round_id: int,
    actor: Actor,
    bet_id: int,
    take: bool,
    stake_minor: int | None = None,
    idempotency_key: str = "",
) -> Round:
    """The bettor of a main bet or a bet behind takes insurance or declines it, while the dealer
    shows an ace (rules 3.3, 2.4). ``stake_minor`` is the amount asked for (None: exactly half);
    the engine decides the stake (``insurance_stake``: the rule set's ``insurance_stake``, the
    table's smallest chip) and the wallet holds exactly that. Raises ``insurance_not_offered``,
    ``insurance_already_decided``, ``insurance_stake_not_exact``, ``insurance_stake_not_allowed``,
    ``insurance_stake_above_half``, ``insurance_stake_not_unit_multiple``, ``invalid_stake``,
    ``no_such_bet``, ``not_bet_owner``, ``insufficient_funds``; nothing is written then."""

    def body(round_: Round, applied: list[AppliedDefault]) -> Round:
        player = _decider(
            actor, round_, lambda: Bet.objects.filter(pk=bet_id).values_list("player_id", flat=True).first()
        )
        if round_.status != RoundStatus.INSURANCE:
            raise InsuranceNotOfferedError("insurance is not on offer now")
        insured = _insured_bet(round_, bet_id, player.pk)
        state = round_state(round_)
        work = Work()
        bettor = engine_player(player.pk)
        if not take:
            state, _ = step(state, DeclineInsurance(bettor, str(insured.pk)), work, "insurance_declined")
        else:
            # The engine decides the stake first (no row is written for a refused take), then the
            # take is recorded with the insurance bet's id.
            asked = TakeInsurance(bettor, str(insured.pk), None, stake_minor)
            _, events = game(lambda: apply(state, asked))
            stake = next(event.stake_minor for event in events if isinstance(event, InsuranceTaken))
            insurance = Bet.objects.create(
                round=round_,
                box_number=insured.box_number,
                player=player,
                kind=BetKind.INSURANCE,
                stake_minor=stake,
                insures=insured,
                idempotency_key=idempotency_key,
                terminal=actor.terminal,
            )
            taken = TakeInsurance(bettor, str(insured.pk), str(insurance.pk), stake_minor)
            state, _ = step(state, taken, work, "insurance_taken")
            bet_hold(round_, player, insurance, stake, "placed")
        state = auto_deal(round_, state, work)
        finish(round_, state, work, actor, timezone.now())
        return round_

    return round_command(round_id, body, actor)


def insurance_close(*, round_id: int, actor: Actor) -> Round:
    """The dealer ends the insurance offer; every bettor still undecided declines (rules 2.6)."""

    def body(round_: Round, applied: list[AppliedDefault]) -> Round:
        require_dealer_or_reader(actor, round_.table)
        if round_.status != RoundStatus.INSURANCE:
            raise InsuranceNotOfferedError("insurance is not on offer now")
        work = Work()
        state, _ = step(round_state(round_), CloseInsurance(), work, "insurance_closed")
        state = auto_deal(round_, state, work)
        finish(round_, state, work, actor, timezone.now())
        return round_

    return round_command(round_id, body, actor)


def decision_make(*, round_id: int, actor: Actor, box_number: int, decision: str) -> Round:
    """The box owner decides for the box's current hand: ``hit``, ``stand``, ``double``,
    ``split`` (``surrender`` where the rules allow it) (rules 5). A double or split holds the added
    stake on the owner's wallet (bets behind hold their presets' exposure when placed). On a
    virtual shoe the cards follow at once, and the dealer plays when the last box is done.

    Raises ``not_box_owner`` (someone else's box), ``not_your_turn``, ``<decision>_not_allowed``,
    ``card_expected``, ``decision_deadline_passed`` (the stand default was applied first),
    ``awaiting_correction``, ``insufficient_funds``, ``illegal_action`` (no such decision).
    """
    action_class = DECISIONS.get(decision)
    if action_class is None:
        raise TableIllegalActionError(f"unknown decision {decision!r}")

    def body(round_: Round, applied: list[AppliedDefault]) -> Round:
        player = _decider(actor, round_, lambda: _box_owner(round_, box_number))
        if any(item.kind == "stand" and item.box == box_number for item in applied):
            raise DecisionDeadlinePassedError("the decision time ran out: the box stood by default")
        if round_.awaiting_correction is not None:
            raise AwaitingCorrectionError("a misscanned card waits for a pit boss's correction")
        if round_.status != RoundStatus.PLAYERS:
            raise TableNotYourTurnError("no player decision now")
        state = round_state(round_)
        box = next((item for item in state.boxes if item.number == box_number), None)
        if box is not None and box.owner != engine_player(player.pk):
            raise NotBoxOwnerError(f"box {box_number} belongs to another player")
        work = Work()
        state, events = step(state, action_class(engine_player(player.pk), box_number), work, "decision")
        added = [event for event in events if isinstance(event, StakeAdded)]
        if added:
            bets = {
                str(bet.pk): bet
                for bet in Bet.objects.filter(round=round_, kind=BetKind.MAIN, box_number=box_number)
            }
            for event in added:
                if event.bet_id in bets:
                    # Serialized by the round's lock; a repeated decision is refused by the engine.
                    bet_hold(round_, player, bets[event.bet_id], event.stake_minor, event.reason)
        state = auto_deal(round_, state, work)
        finish(round_, state, work, actor, timezone.now())
        return round_

    return round_command(round_id, body, actor)
