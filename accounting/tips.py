"""Tips to the dealers: the services that record them and the selectors of a shift's pool.

A round lasts until its tips are accepted and its cards collected. After a round is settled, and
until the table's next round opens, the dealer signed on at the table records the round's tips
(``tip_record``: chips handed over at the table, which go to the dealers' toke box and move
nothing in the ledger) or that it brought none (``tips_none_record``). Opening the next round
does not wait for this step: once it opens, the settled round takes no more tips
(``tips_round_closed``). A player tips the dealer of the table's current round, or of its last
settled one, from their wallet through a terminal (``tip_from_player``): a ledger transfer from
the player's wallet to the casino's tips pool (``wallet.services.tip_from_wallet``).

A tip is recorded for the dealer of its round (``Round.dealer``) in the gaming day and shift the
round opened in. The tips of a shift, from every table of the casino, chips and wallet alike, are
one pool, shared among the dealers who dealt in that shift in proportion to the time each dealt
(their sign-on spells at any table of the casino, within the shift): ``pool_split``.

Locks, in the order of ``accounting/locking.py``: the gaming days (shared: the round's, whose tip it
is, and the current one, ``casino.gaming_day_state.gaming_day_writable``; either closed refuses the
tip, ``gaming_day_closed``), the table row (so that
no next round opens while a tip is recorded for the last), then the wallet's accounts (a wallet
tip) and the audit chain last. A refusal leaves no tip, no transfer and no audit record.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count, Max, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounting.errors import (
    InvalidTipAmountError,
    NoRoundToTipError,
    NotTheTablesDealerError,
    RoundNotSettledError,
    TipsAlreadyRecordedError,
    TipsRoundClosedError,
)
from accounting.gaming_days import Shift, schedule_of, shift_of, shifts_of_day
from accounting.locking import table_row_lock
from accounting.models import Tip, TipSource
from casino.actors import Actor, require_staff
from casino.gaming_day_state import gaming_day_writable
from casino.models import Casino, Table
from casino.table_access import require_player
from tables.models import BOX_NUMBERS, Round, RoundStatus, TableDealer
from wallet.services import MAX_AMOUNT_MINOR, tip_from_wallet

__all__ = [
    "DealerShare",
    "TipsReport",
    "pool_split",
    "round_tips",
    "shift_tips_report",
    "tip_from_player",
    "tip_record",
    "tippable_round",
    "tips_none_record",
]


# ---------------------------------------------------------------- helpers


def _amount_checked(amount_minor: Any) -> int:
    if isinstance(amount_minor, bool) or not isinstance(amount_minor, int):
        raise InvalidTipAmountError(_("A tip is a whole number of minor units."))
    if amount_minor <= 0 or amount_minor > MAX_AMOUNT_MINOR:
        raise InvalidTipAmountError(_("A tip is an amount above zero."), amount_minor=amount_minor)
    return int(amount_minor)


def _box_checked(box: int | None) -> int | None:
    if box is not None and box not in BOX_NUMBERS:
        raise InvalidTipAmountError(_("Boxes are numbered 1 to 7."), box=box)
    return box


def _moment_of(round_: Round) -> tuple[dt.date, int]:
    """The gaming day and shift a round opened in: those of its tips."""
    shift = shift_of(schedule_of(round_.table.casino), round_.opened_at)
    return shift.gaming_day, shift.number


def _latest_round(table_id: int) -> Round | None:
    return (
        Round.objects.select_related("table__casino", "dealer")
        .filter(table_id=table_id)
        .order_by("-number")
        .first()
    )


def _dealer_round_locked(*, round_: Round, dealer: User) -> Round:
    """Within the command's transaction: the gaming day of the round open, the table locked, ``dealer``
    the dealer signed on at the table, and the round its latest and settled. Returns the round."""
    day, _shift = _moment_of(round_)
    gaming_day_writable(casino=round_.table.casino, also=[day])
    table_row_lock(round_.table_id)
    signed_on = TableDealer.objects.filter(
        table_id=round_.table_id, dealer_id=dealer.pk, signed_off_at__isnull=True
    ).exists()
    if not signed_on:
        raise NotTheTablesDealerError(_("Only the dealer signed on at this table records its tips."))
    latest = _latest_round(round_.table_id)
    assert latest is not None  # the round itself is one
    if latest.pk != round_.pk:
        raise TipsRoundClosedError(
            _("The next round has opened: round %(number)s takes no more tips.") % {"number": round_.number},
            round_id=round_.pk,
        )
    if latest.status != RoundStatus.SETTLED:
        raise RoundNotSettledError(_("The round is not settled yet."), round_id=round_.pk)
    if latest.dealer_id is None:
        raise NoRoundToTipError(_("This round has no dealer to tip."), round_id=round_.pk)
    return latest


def _audited(tip: Tip, *, actor: Actor) -> None:
    actor.audit(
        action="accounting.tip_recorded",
        object_type="accounting.tip",
        object_id=tip.pk,
        after={
            "round_id": tip.round_id,
            "table_id": tip.table_id,
            "dealer_id": tip.dealer_id,
            "gaming_day": tip.gaming_day.isoformat(),
            "shift": tip.shift,
            "amount_minor": tip.amount_minor,
            "source": tip.source,
            "box": tip.box,
            "player_id": tip.player_id,
            "transfer_id": tip.transfer_id,
        },
    )


# ---------------------------------------------------------------- services


def tip_record(*, round_: Round, amount_minor: int, actor: Actor, box: int | None = None) -> Tip:
    """Chips handed to the dealer of a settled round, recorded by the dealer signed on at its
    table (the chips go to the dealers' toke box: nothing moves in the ledger). Any number of tips
    per round, until the table's next round opens. Needs ``casino.run_table``. Locks the gaming
    day (shared), the table row, then the audit chain. Raises ``invalid_tip_amount``,
    ``permission_denied``, ``not_the_tables_dealer``, ``tips_round_closed``,
    ``round_not_settled``, ``gaming_day_closed``."""
    amount = _amount_checked(amount_minor)
    _box_checked(box)
    by = require_staff(actor, "run_table")
    with transaction.atomic():
        locked = _dealer_round_locked(round_=round_, dealer=by)
        day, shift = _moment_of(locked)
        assert locked.dealer_id is not None
        tip = Tip.objects.create(
            casino_id=locked.table.casino_id,
            round=locked,
            table_id=locked.table_id,
            dealer_id=locked.dealer_id,
            gaming_day=day,
            shift=shift,
            amount_minor=amount,
            source=TipSource.CHIPS,
            box=box,
            recorded_by=by,
            recorded_at=timezone.now(),
        )
        _audited(tip, actor=actor)
    return tip


def tips_none_record(*, round_: Round, actor: Actor) -> Tip:
    """The dealer's record that a settled round brought no tips (its tips step done). Refused once
    the round has a tip or this record already (``tips_already_recorded``), and on the refusals of
    ``tip_record``."""
    by = require_staff(actor, "run_table")
    with transaction.atomic():
        locked = _dealer_round_locked(round_=round_, dealer=by)
        if Tip.objects.filter(round=locked).exists():
            raise TipsAlreadyRecordedError(_("This round's tips are recorded already."), round_id=locked.pk)
        day, shift = _moment_of(locked)
        assert locked.dealer_id is not None
        tip = Tip.objects.create(
            casino_id=locked.table.casino_id,
            round=locked,
            table_id=locked.table_id,
            dealer_id=locked.dealer_id,
            gaming_day=day,
            shift=shift,
            amount_minor=0,
            source=TipSource.NONE,
            recorded_by=by,
            recorded_at=timezone.now(),
        )
        _audited(tip, actor=actor)
    return tip


def tip_from_player(*, table: Table, amount_minor: int, actor: Actor) -> Tip:
    """The player signed in at a terminal of ``table`` (``actor``: the terminal with the player)
    tips the dealer of the table's latest round (open or settled; not a voided one) from their
    wallet: the ledger transfer wallet -> tips pool, and the tip naming it and the terminal.
    Locks the gaming day (shared), the table row, the two accounts (id order), then the audit
    chain. Raises ``permission_denied`` (no player at a terminal of this table),
    ``invalid_tip_amount``, ``no_round_to_tip``, ``gaming_day_closed``, ``insufficient_funds``."""
    player = require_player(actor, table)
    amount = _amount_checked(amount_minor)
    with transaction.atomic():
        for _attempt in range(2):
            round_ = _latest_round(table.pk)
            if round_ is None or round_.status == RoundStatus.VOIDED or round_.dealer_id is None:
                raise NoRoundToTipError(_("This table has no round whose dealer can be tipped."))
            day, shift = _moment_of(round_)
            gaming_day_writable(casino=table.casino, also=[day])
            table_row_lock(table.pk)
            latest = _latest_round(table.pk)
            if latest is not None and latest.pk == round_.pk:
                break
        else:  # two rounds opened while this waited: the table moves faster than it can be tipped
            raise NoRoundToTipError(_("This table has no round whose dealer can be tipped."))
        assert round_.dealer_id is not None
        transfer = tip_from_wallet(player=player, amount_minor=amount, actor=actor, round_id=round_.pk)
        tip = Tip.objects.create(
            casino_id=table.casino_id,
            round=round_,
            table_id=table.pk,
            dealer_id=round_.dealer_id,
            gaming_day=day,
            shift=shift,
            amount_minor=amount,
            source=TipSource.WALLET,
            player=player,
            transfer=transfer,
            terminal=actor.terminal,
            recorded_at=timezone.now(),
        )
        _audited(tip, actor=actor)
    return tip


# ---------------------------------------------------------------- selectors


def round_tips(round_id: int) -> list[Tip]:
    """A round's tips (and its "no tips" record), in the order recorded."""
    return list(Tip.objects.filter(round_id=round_id).order_by("recorded_at", "pk"))


def round_tips_marker(round_id: int) -> tuple[int, int | None]:
    """How many tips (and "no tips" records) a round has and the last one's id: what changes when
    one is recorded, wherever from (the console's version: ``floor.console``)."""
    marker = Tip.objects.filter(round_id=round_id).aggregate(count=Count("pk"), last=Max("pk"))
    return marker["count"], marker["last"]


def tippable_round(table: Table) -> Round | None:
    """The table's latest round when it is settled: the round the dealer records tips for."""
    latest = _latest_round(table.pk)
    return latest if latest is not None and latest.status == RoundStatus.SETTLED else None


def pool_split(pool_minor: int, weights: Mapping[int, int]) -> dict[int, int]:
    """``pool_minor`` shared in proportion to ``weights`` (key -> a whole number from 0), in whole
    minor units, by largest remainder: each key gets ``pool * weight // total``; the units left
    over go one each to the keys with the largest remainders (``pool * weight % total``), ties to
    the smallest key. The shares add up to the pool exactly. All weights 0 (or none): equal
    weights. An empty mapping gets nothing."""
    if not weights:
        return {}
    total = sum(weights.values())
    effective = dict(weights) if total > 0 else dict.fromkeys(weights, 1)
    total = sum(effective.values())
    shares = {key: pool_minor * weight // total for key, weight in effective.items()}
    left = pool_minor - sum(shares.values())
    by_remainder = sorted(effective, key=lambda key: (-(pool_minor * effective[key] % total), key))
    for key in by_remainder[:left]:
        shares[key] += 1
    return shares


@dataclass(frozen=True)
class DealerShare:
    dealer_id: int
    dealer_name: str
    seconds_dealt: int
    tips_minor: int
    share_minor: int

    @property
    def time_dealt(self) -> str:
        hours, rest = divmod(self.seconds_dealt, 3600)
        return f"{hours}:{rest // 60:02d}"


@dataclass(frozen=True)
class TipsReport:
    """A shift's tips: every tip of the casino's tables (the "no tips" records left out), the pool
    (chips and wallet), and each dealer's share of it."""

    casino: Casino
    shift: Shift
    tips: list[Tip] = field(default_factory=list)
    pool_minor: int = 0
    chips_minor: int = 0
    wallet_minor: int = 0
    shares: list[DealerShare] = field(default_factory=list)
    rounds_without_tips: int = 0

    def share_of(self, dealer_id: int) -> DealerShare | None:
        return next((share for share in self.shares if share.dealer_id == dealer_id), None)


def dealing_seconds(casino: Casino, shift: Shift, *, now: dt.datetime | None = None) -> dict[int, int]:
    """Whole seconds each dealer dealt within the shift, at any table of the casino: their sign-on
    spells cut to the shift (a spell still open runs until now, or the shift's end)."""
    now = now or timezone.now()
    end_of_shift = min(shift.ends_at, now)
    spells = TableDealer.objects.filter(
        Q(signed_off_at__isnull=True) | Q(signed_off_at__gt=shift.starts_at),
        table__casino=casino,
        signed_on_at__lt=shift.ends_at,
    ).values_list("dealer_id", "signed_on_at", "signed_off_at")
    seconds: dict[int, int] = {}
    for dealer_id, signed_on_at, signed_off_at in spells:
        start = max(signed_on_at, shift.starts_at)
        end = min(signed_off_at or end_of_shift, shift.ends_at)
        if end > start:
            seconds[dealer_id] = seconds.get(dealer_id, 0) + int((end - start).total_seconds())
    return seconds


def shift_of_day(casino: Casino, day: dt.date, number: int) -> Shift | None:
    """Shift ``number`` of the gaming day, or None when the day has no such shift."""
    return next((shift for shift in shifts_of_day(schedule_of(casino), day) if shift.number == number), None)


def shift_tips_report(casino: Casino, shift: Shift, *, now: dt.datetime | None = None) -> TipsReport:
    """The tips of a shift and the pool's shares: every dealer who dealt in the shift shares the
    pool in proportion to the time they dealt (``dealing_seconds``, ``pool_split``). Should the
    shift hold tips but nobody dealt in it, the dealers of the tipped rounds share it equally."""
    recorded = list(
        Tip.objects.filter(casino=casino, gaming_day=shift.gaming_day, shift=shift.number)
        .select_related("table", "round", "dealer", "player")
        .order_by("recorded_at", "pk")
    )
    tips = [tip for tip in recorded if tip.source != TipSource.NONE]
    chips = sum(tip.amount_minor for tip in tips if tip.source == TipSource.CHIPS)
    wallet = sum(tip.amount_minor for tip in tips if tip.source == TipSource.WALLET)
    seconds = dealing_seconds(casino, shift, now=now)
    tipped = {tip.dealer_id for tip in tips}
    weights = seconds if any(seconds.values()) else dict.fromkeys(tipped, 0)
    shares = pool_split(chips + wallet, weights)
    names = dict(get_user_model().objects.filter(pk__in=set(weights) | tipped).values_list("pk", "username"))
    rows = [
        DealerShare(
            dealer_id=dealer_id,
            dealer_name=names.get(dealer_id, str(dealer_id)),
            seconds_dealt=seconds.get(dealer_id, 0),
            tips_minor=sum(tip.amount_minor for tip in tips if tip.dealer_id == dealer_id),
            share_minor=shares.get(dealer_id, 0),
        )
        for dealer_id in sorted(set(weights) | tipped, key=lambda key: (names.get(key, ""), key))
    ]
    return TipsReport(
        casino=casino,
        shift=shift,
        tips=tips,
        pool_minor=chips + wallet,
        chips_minor=chips,
        wallet_minor=wallet,
        shares=rows,
        rounds_without_tips=sum(1 for tip in recorded if tip.source == TipSource.NONE),
    )
