"""Cards from a physical shoe (dealer console or card reader) and the pit boss's correction of a
misscan (DESIGN "Shoes"; rules/blackjack.md 4.1). A virtual shoe deals by itself
(``tables.services.commands.auto_deal``)."""

from __future__ import annotations

from django.utils import timezone

from casino.actors import Actor, require_staff
from casino.errors import GameRefusedError, game, reason_required
from casino.event_log import EventDraft
from casino.hints import hint, queue_topic
from casino.table_access import is_dealer_terminal_at
from games.blackjack import DealCard
from games.cards import Card
from games.errors import GameError
from tables.errors import (
    AwaitingCorrectionError,
    MisscanError,
    NoMisscanError,
    RoundNotOpenError,
    TableError,
    TableReasonRequiredError,
    VirtualShoeError,
)
from tables.models import Round, RoundStatus
from tables.services.commands import (
    AppliedDefault,
    Work,
    finish,
    is_virtual,
    round_command,
    round_state,
    step,
)
from tables.services.common import require_dealer_or_reader


def card_enter(*, round_id: int, actor: Actor, card: str) -> Round:
    """A card leaves a physical shoe (dealer console or card reader); the engine places it where
    the deal expects it. A card that the remaining shoe cannot hold, that is not a card, or that
    arrives when none is expected is a misscan: it is recorded (``misscan`` event, audited), the
    round waits for a pit boss's ``card_correct``, and the call raises ``misscan`` (details:
    ``reason`` = the engine's code). Raises ``awaiting_correction``, ``virtual_shoe``."""
    refusal: list[MisscanError] = []

    def body(round_: Round, applied: list[AppliedDefault]) -> Round:
        require_dealer_or_reader(actor, round_.table)
        # First: a virtual shoe never takes a card, whatever the round's state.
        if is_virtual(round_):
            raise VirtualShoeError("this table deals from a virtual shoe")
        if round_.status not in (
            RoundStatus.DEALING,
            RoundStatus.PLAYERS,
            RoundStatus.DEALER,
            RoundStatus.INSURANCE,
        ):
            raise RoundNotOpenError(f"no card is expected: the round is {round_.status}")
        if round_.awaiting_correction is not None:
            raise AwaitingCorrectionError("a misscanned card waits for a pit boss's correction")
        state = round_state(round_)
        work = Work()
        try:
            parsed = Card.parse(card)
            state, _ = step(state, DealCard(parsed), work, "card_dealt", {"source": "physical_shoe"})
        except (GameError, GameRefusedError, TableError) as error:
            code = getattr(error, "code", "misscan")
            round_.awaiting_correction = {
                "card": str(card)[:10],
                "reason": code,
                "at": timezone.now().isoformat(),
            }
            work = Work(drafts=[EventDraft("misscan", {"card": str(card)[:10], "reason": code})])
            hint(queue_topic(round_.table.casino_id))  # the misscan waits in the pit's queue
            state = round_state(round_)
            finish(round_, state, work, actor, timezone.now())
            actor.audit(
                action="round.misscan",
                object_type="tables.round",
                object_id=round_.pk,
                after={"card": str(card)[:10], "reason": code},
            )
            misscan = MisscanError(
                f"misscan: {card!r} ({code}); the round waits for a correction", reason=code
            )
            misscan.effects_stand = True  # the misscan is recorded: the round waits for its correction
            refusal.append(misscan)
            return round_
        finish(round_, state, work, actor, timezone.now())
        return round_

    result = round_command(round_id, body, actor)
    if refusal:
        raise refusal[0]
    return result


def card_correct(*, round_id: int, actor: Actor, card: str | None, reason: str) -> Round:
    """A pit boss resolves a misscan: ``card`` is the card that really left the shoe (placed as
    the deal expects it), or None when no card left it (a double read). Needs
    ``casino.void_round`` and a reason. Raises ``no_misscan``, ``reason_required`` or the
    engine's code if the corrected card is refused too. Audited with the misscan and the card.
    The table's dealer terminal may correct too (a studio's automation, whose shoe misread): the
    correction is then audited as that terminal's."""
    if actor.terminal is None:
        require_staff(actor, "void_round")
    reason = reason_required(reason, "a reason is required", error=TableReasonRequiredError)

    def body(round_: Round, applied: list[AppliedDefault]) -> Round:
        if actor.terminal is not None and not is_dealer_terminal_at(actor, round_.table):
            require_staff(actor, "void_round")  # refuses every other terminal
        if round_.awaiting_correction is None:
            raise NoMisscanError("no misscan to correct")
        misscan = round_.awaiting_correction
        state = round_state(round_)
        work = Work()
        if card is not None:
            parsed = game(lambda: Card.parse(card))
            state, _ = step(
                state, DealCard(parsed), work, "card_corrected", {"misscan": misscan, "reason": reason}
            )
        else:
            work.drafts.append(
                EventDraft("card_corrected", {"misscan": misscan, "reason": reason, "card": None})
            )
        round_.awaiting_correction = None
        hint(queue_topic(round_.table.casino_id))  # out of the pit's queue
        finish(round_, state, work, actor, timezone.now())
        actor.audit(
            action="round.card_corrected",
            object_type="tables.round",
            object_id=round_.pk,
            before={"misscan": misscan},
            after={"card": card, "reason": reason},
        )
        return round_

    return round_command(round_id, body, actor)
