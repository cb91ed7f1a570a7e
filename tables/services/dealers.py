"""Who deals at a table, and whether the table is open for play (rules/blackjack.md 3.1; DESIGN
"Who uses it"): a dealer signs on to a table; its tray's opening count, signed by two people,
opens it for play and its closing count closes it (docs/accounting.md); another dealer signing on
takes over (a dealer change, recorded and shown); the table closes between rounds.

One dealer at a table at a time: while a dealer is signed on, staff dealer commands at that table
by anyone else are refused ``not_table_dealer`` (``tables.services.common.require_dealer_or_reader``);
a pit boss who also deals, the table's dealer terminal and the system keep their rights. A pit boss
opens and closes tables (DESIGN: "signs table opens/closes") without signing on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone

from casino.actors import Actor, require_staff
from casino.errors import PermissionRefusedError
from casino.models import Table
from casino.table_access import require_terminal_at
from tables.errors import (
    AlreadySignedOnError,
    NotSignedOnError,
    RoundInPlayElsewhereError,
    RoundInProgressError,
    TableClosedError,
    TableOpenError,
)
from tables.locking import table_lock
from tables.models import Round, TableDealer
from tables.services.common import require_dealer_or_reader, table_dealer_id

if TYPE_CHECKING:
    pass


def table_dealer_current(table: Table) -> TableDealer | None:
    """The dealer spell open at the table (with its dealer), or None."""
    return (
        TableDealer.objects.select_related("dealer").filter(table=table, signed_off_at__isnull=True).first()
    )


def dealer_sign_on(*, table: Table, actor: Actor) -> TableDealer:
    """The staff dealer ``actor`` signs on to ``table``; the dealer signed on before, if any, is
    signed off (a dealer change: audited ``table.dealer_changed`` with both names), as is the
    actor's own spell at another table, between its rounds: a dealer does not walk away from a
    round in play (``round_in_play_elsewhere``: they finish it, or another dealer takes over
    there first). Needs ``casino.run_table``. Locks the table rows, the actor's other table
    first when its id is lower (in id order, as two sign-ons may cross). Refuses
    ``already_signed_on`` when the actor is the table's dealer already."""
    require_staff(actor, "run_table")
    assert actor.user is not None  # require_staff: a staff user
    user = actor.user
    with transaction.atomic():
        # The actor's spell elsewhere ends too (one table per dealer); that table stays as it is.
        # Its row is locked with this one: no round opens there while the spell ends.
        elsewhere = dict(
            TableDealer.objects.filter(dealer=user, signed_off_at__isnull=True)
            .exclude(table_id=table.pk)
            .values_list("table_id", "table__name")
        )
        for table_id in sorted({table.pk, *elsewhere}):
            table_lock(table_id)
        current = table_dealer_current(table)
        if current is not None and current.dealer_id == user.pk:
            raise AlreadySignedOnError("you are signed on to this table already")
        in_play = (
            Round.objects.filter(table_id__in=elsewhere).open().values_list("table__name", "number").first()
            if elsewhere
            else None
        )
        if in_play is not None:
            raise RoundInPlayElsewhereError(
                f"round {in_play[1]} is in play at {in_play[0]}, where you deal: finish it, or let "
                "another dealer take over there, then sign on here",
                table=in_play[0],
                number=in_play[1],
            )
        now = timezone.now()
        TableDealer.objects.filter(signed_off_at__isnull=True, dealer=user).update(signed_off_at=now)
        if current is not None:
            TableDealer.objects.filter(pk=current.pk).update(signed_off_at=now)
        spell = TableDealer.objects.create(table=table, dealer=user, signed_on_at=now)
        actor.audit(
            action="table.dealer_changed" if current is not None else "table.dealer_signed_on",
            object_type="tables.table",
            object_id=table.pk,
            before={"dealer": current.dealer.get_username()} if current is not None else None,
            after={
                "table": table.name,
                "dealer": user.get_username(),
                "left_tables": list(elsewhere.values()),
            },
        )
    spell.dealer = user
    return spell


def dealer_sign_off(*, table: Table, actor: Actor) -> None:
    """The table's dealer signs off (or a pit boss signs them off). A table open for play keeps
    its dealer until another signs on or it is closed: signing off an open table is refused
    ``table_open``. Refuses ``not_signed_on`` when no dealer is signed on. Audited."""
    with transaction.atomic():
        locked = table_lock(table.pk)
        current = table_dealer_current(table)
        if current is None:
            raise NotSignedOnError("no dealer is signed on to this table")
        is_own = actor.user is not None and current.dealer_id == actor.user.pk
        if not is_own:
            require_staff(actor, "supervise_pit")
        if locked is not None and locked.is_open:
            raise TableOpenError("close the table, or let the next dealer sign on")
        TableDealer.objects.filter(pk=current.pk).update(signed_off_at=timezone.now())
        actor.audit(
            action="table.dealer_signed_off",
            object_type="tables.table",
            object_id=table.pk,
            before={"dealer": current.dealer.get_username()},
            after={"table": table.name},
        )


def _require_signed_on_dealer(actor: Actor, table: Table) -> None:
    """Opening and closing: the table's signed-on dealer, its dealer terminal or the system; a
    staff dealer must have signed on first (``not_signed_on``); a pit boss need not (``void_round``,
    the pit boss's permission over a table's play, as for voids and misscan corrections)."""
    if actor.has_perm("void_round"):
        require_terminal_at(actor, table)
        return
    require_dealer_or_reader(actor, table)
    if actor.terminal is not None and actor.terminal.kind == actor.terminal.Kind.CARD_READER:
        raise PermissionRefusedError("A card reader does not open or close tables.")
    if actor.user is not None and table_dealer_id(table) != actor.user.pk:
        raise NotSignedOnError("sign on to the table first")


def table_open_for_play(*, table: Table, actor: Actor) -> Table:
    """Open the table for play: rounds may start (``round_open`` refuses ``table_closed``
    otherwise). On the floor a table opens with its tray's opening count
    (:func:`table_play_by_count`); this is the system's way (seeds, simulations, benches) and a
    studio's dealer terminal's. Needs the signed-on dealer (``not_signed_on``), a pit boss, the
    table's dealer terminal or the system. Refuses ``table_open`` when it is open. Locks the table
    row. Audited ``table.opened``."""
    return _table_set_open(table=table, actor=actor, is_open=True)


def table_play_by_count(*, table: Table, is_open: bool, actor: Actor, count_id: int) -> Table:
    """The tray's counts open and close the table: the second signature of its opening count
    opens it for play, of its closing count closes it (``accounting.services.tray_count_sign``,
    in its transaction). The count's two signatures are the authority: no dealer need be signed
    on. A table already in that state stays as it is, unaudited. Closing is refused while a round
    is open (``round_in_progress``). Locks the table row. Audited ``table.opened`` /
    ``table.closed`` with the count."""
    with transaction.atomic():
        locked = table_lock(table.pk)
        assert locked is not None  # the table exists: the caller holds it
        if locked.is_open == is_open:
            table.is_open = is_open
            return table
        return _table_set_open(table=table, actor=actor, is_open=is_open, count_id=count_id)


def table_close_for_play(*, table: Table, actor: Actor) -> Table:
    """Close the table: no round starts until it is opened again. Refused while a round is open
    (``round_in_progress``: settle or void it first) and when closed already (``table_closed``).
    The same rights and lock as opening. Audited ``table.closed``."""
    return _table_set_open(table=table, actor=actor, is_open=False)


def _table_set_open(*, table: Table, actor: Actor, is_open: bool, count_id: int | None = None) -> Table:
    if count_id is None:
        _require_signed_on_dealer(actor, table)
    with transaction.atomic():
        locked = table_lock(table.pk)
        assert locked is not None  # the table exists: the caller holds it
        was_open = locked.is_open
        if was_open == is_open:
            if is_open:
                raise TableOpenError("the table is open already")
            raise TableClosedError("the table is closed already")
        if not is_open and Round.objects.filter(table=table).open().exists():
            raise RoundInProgressError("a round is in progress: settle or void it first")
        Table.objects.filter(pk=table.pk).update(is_open=is_open)
        actor.audit(
            action="table.opened" if is_open else "table.closed",
            object_type="tables.table",
            object_id=table.pk,
            before={"is_open": was_open},
            after={"table": table.name, "is_open": is_open, "dealer": _dealer_name(table)}
            | ({"by_count": count_id} if count_id is not None else {}),
        )
    table.is_open = is_open
    return table


def _dealer_name(table: Table) -> str:
    spell = table_dealer_current(table)
    return spell.dealer.get_username() if spell is not None else ""
