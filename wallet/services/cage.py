"""The cage's money: buy-ins and cash-outs of players, fills and credits of the tables' trays,
and the same moves for a process of the back office itself (``system_*``)."""

from __future__ import annotations

from typing import Any

from casino.actors import Actor, require_staff
from casino.models import Player, Table
from wallet.errors import CashOutConfirmationRequiredError
from wallet.models import AccountKind, Transfer, TransferKind
from wallet.services.ledger import (
    player_spec,
    require_amount,
    require_process,
    simple_move,
    table_spec,
    venue_spec,
)


def cage_buy_in(*, player: Player, amount_minor: int, actor: Actor) -> Transfer:
    """A player buys in at the cage: cage -> player wallet.

    Needs ``casino.operate_cage``. Locks the cage and player accounts (id order), then the audit
    chain. Raises ``permission_denied``, ``invalid_amount``.
    """
    require_staff(actor, "operate_cage")
    return _buy_in(player=player, amount_minor=amount_minor, actor=actor)


def _buy_in(*, player: Player, amount_minor: int, actor: Actor) -> Transfer:
    require_amount(amount_minor)
    return simple_move(
        casino=player.casino,
        kind=TransferKind.BUY_IN,
        source=venue_spec(AccountKind.CAGE),
        destination=player_spec(player),
        amount_minor=amount_minor,
        actor=actor,
        audit_action="wallet.buy_in",
        audit_after={"player_id": player.pk},
    )


def system_buy_in(*, player: Player, amount_minor: int, actor: Actor) -> Transfer:
    """Cage -> player wallet for a process of the back office itself, with no cashier: the demo
    seed, the table simulation, test fixtures. ``actor`` is the process
    (``Actor.automatic(name)``): the transfer's actor in the audit trail; a person's buy-in is
    ``cage_buy_in``. Raises ``invalid_amount``. A process that may run twice (the seed) wraps the
    call in ``idempotent``."""
    require_process(actor)
    return _buy_in(player=player, amount_minor=amount_minor, actor=actor)


def cage_cash_out(*, player: Player, amount_minor: int, actor: Actor, confirmed: bool = False) -> Transfer:
    """A player cashes out at the cage: player wallet -> cage. Only available money (balance minus
    open holds) can leave. An amount above the casino's ``cash_out_confirmation_above_minor`` is
    paid only ``confirmed`` by the cashier (the audit record says so). Needs ``casino.operate_cage``.
    Raises ``permission_denied``, ``invalid_amount``, ``cash_out_confirmation_required``,
    ``insufficient_funds``."""
    require_staff(actor, "operate_cage")
    require_amount(amount_minor)
    above_minor = player.casino.cash_out_confirmation_above_minor
    needs_confirmation = amount_minor > above_minor
    if needs_confirmation and not confirmed:
        raise CashOutConfirmationRequiredError(
            f"A cash-out above {above_minor} needs the cashier's confirmation.",
            amount_minor=amount_minor,
            above_minor=above_minor,
        )
    return simple_move(
        casino=player.casino,
        kind=TransferKind.CASH_OUT,
        source=player_spec(player),
        destination=venue_spec(AccountKind.CAGE),
        amount_minor=amount_minor,
        actor=actor,
        audit_action="wallet.cash_out",
        audit_after={
            "player_id": player.pk,
            **({"confirmed_above_minor": above_minor} if needs_confirmation else {}),
        },
    )


def table_fill(
    *, table: Table, amount_minor: int, actor: Actor, reference_type: str = "", reference_id: Any = ""
) -> Transfer:
    """Chips from the cage to a table's tray (cage -> tray), naming the record it belongs to
    (a fill slip: ``reference_type="accounting.slip"``), when there is one. Needs
    ``casino.operate_cage``. Raises ``permission_denied``, ``invalid_amount``."""
    require_staff(actor, "operate_cage")
    return _fill(
        table=table,
        amount_minor=amount_minor,
        actor=actor,
        reference_type=reference_type,
        reference_id=reference_id,
    )


def _fill(
    *,
    table: Table,
    amount_minor: int,
    actor: Actor,
    reference_type: str = "",
    reference_id: Any = "",
) -> Transfer:
    require_amount(amount_minor)
    return simple_move(
        casino=table.casino,
        kind=TransferKind.TABLE_FILL,
        source=venue_spec(AccountKind.CAGE),
        destination=table_spec(table, AccountKind.TABLE_TRAY),
        amount_minor=amount_minor,
        actor=actor,
        audit_action="wallet.table_fill",
        audit_after={"table_id": table.pk},
        reference_type=reference_type,
        reference_id=reference_id,
    )


def system_table_fill(*, table: Table, amount_minor: int, actor: Actor) -> Transfer:
    """Cage -> table tray for a process of the back office itself (see ``system_buy_in``)."""
    require_process(actor)
    return _fill(table=table, amount_minor=amount_minor, actor=actor)


def table_credit(
    *, table: Table, amount_minor: int, actor: Actor, reference_type: str = "", reference_id: Any = ""
) -> Transfer:
    """Chips from a table's tray back to the cage (tray -> cage), naming the record it belongs
    to (a credit slip), when there is one. The tray may not go negative: raises
    ``insufficient_funds``. Needs ``casino.operate_cage``."""
    require_staff(actor, "operate_cage")
    require_amount(amount_minor)
    return simple_move(
        casino=table.casino,
        kind=TransferKind.TABLE_CREDIT,
        source=table_spec(table, AccountKind.TABLE_TRAY),
        destination=venue_spec(AccountKind.CAGE),
        amount_minor=amount_minor,
        actor=actor,
        audit_action="wallet.table_credit",
        audit_after={"table_id": table.pk},
        reference_type=reference_type,
        reference_id=reference_id,
    )
