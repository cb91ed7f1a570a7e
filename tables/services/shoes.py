"""Shoes and shuffles (rules/blackjack.md 1.2, DESIGN "Shoes").

A virtual shoe is shuffled with the operating system's cryptographic RNG; its commitment
``sha256(secret + ":" + order)`` is stored before the first card, and the order and secret are
revealed when the shoe is retired (the next shuffle), so anyone can check the shoe was not
changed mid-play (:func:`shoe_verify`, ``manage.py shoe_verify``). A physical shoe receives its
cards one by one from the dealer or a card reader (``card_enter``).
"""

from __future__ import annotations

import hashlib
import secrets
from collections import Counter
from random import SystemRandom

from django.db import transaction
from django.db.models import OuterRef, QuerySet, Subquery
from django.utils import timezone

from casino.actors import Actor
from casino.errors import InvalidConfigurationError
from casino.models import Table
from casino.table_access import is_dealer_terminal_at
from games.cards import shoe_cards
from tables.errors import InvalidCutCardError, RoundInProgressError
from tables.locking import table_lock
from tables.models import Round, Shoe, TableConfigVersion
from tables.services.common import require_dealer_or_reader
from tables.services.config import config_current_ids, config_get, config_rules, table_config_current


def shoe_commitment(secret: str, order: list[str]) -> str:
    return hashlib.sha256(f"{secret}:{' '.join(order)}".encode()).hexdigest()


def shoe_verify(shoe: Shoe) -> bool:
    """True when a retired virtual shoe's revealed order and secret match its commitment and the
    order is a full shoe of its decks."""
    if shoe.kind != Shoe.Kind.VIRTUAL or shoe.retired_at is None or not shoe.order:
        return False
    full = Counter(card.code for card in shoe_cards(shoe.decks))
    return Counter(shoe.order) == full and shoe_commitment(shoe.secret, list(shoe.order)) == shoe.commitment


def shoe_current(table: Table) -> Shoe | None:
    return shoes_current(table.pk).first()


def shoe_and_config_current(table: Table) -> tuple[Shoe | None, TableConfigVersion | None]:
    """The table's shoe in use and its current configuration (``table_config_current``) in one
    statement: the shoe is read with the configuration's id. A table without a shoe in use reads
    the configuration on its own."""
    shoe = (
        shoes_current(table.pk)
        .annotate(current_config_id=Subquery(config_current_ids(OuterRef("table_id"))[:1]))
        .first()
    )
    if shoe is None:
        return None, table_config_current(table)
    config_id = shoe.current_config_id
    return shoe, config_get(config_id) if config_id is not None else None


def shoes_current(table_id: int) -> QuerySet[Shoe]:
    """The table's shoe in use (the newest not retired; there is one at most)."""
    return Shoe.objects.filter(table_id=table_id, retired_at__isnull=True).order_by("-pk")


def shoe_remaining(shoe: Shoe) -> dict[str, int]:
    """Copies of each card still in the shoe (for the engine's misscan check)."""
    counts = Counter({card.code: 0 for card in shoe_cards(1)})
    dealt = shoe.dealt_counts or {}
    return {code: shoe.decks - int(dealt.get(code, 0)) for code in counts}


def shuffle_due(table: Table, shoe: Shoe | None = None, config: TableConfigVersion | None = None) -> bool:
    """No shoe, a shoe of another kind or decks than the configuration, or N rounds dealt.
    ``shoe`` and ``config`` default to the table's current ones (pass them if already read)."""
    config = config if config is not None else table_config_current(table)
    shoe = shoe if shoe is not None else shoe_current(table)
    if config is None or shoe is None:
        return True
    rules = config_rules(config)
    return (
        shoe.kind != config.shoe_kind
        or shoe.decks != rules.decks
        or shoe.rounds_dealt >= config.shuffle_every_rounds
    )


def shoe_shuffle(*, table: Table, actor: Actor, cut_card_position: int | None = None) -> Shoe:
    """Record a shuffle: retire the current shoe (revealing a virtual shoe's order and secret) and
    start a new one of the configured kind and decks; a virtual one is shuffled here and its
    commitment stored before any card leaves it.

    Needs the dealer (``casino.run_table``), the table's dealer terminal or the system. Locks the
    table row. Refused while a round is open (``round_in_progress``). A physical shoe records where
    the dealer placed the cut card (``cut_card_position``: cards behind it, 1 to the shoe's size;
    ``invalid_cut_card`` otherwise; a virtual shoe takes none). Audited (``shoe.shuffled``: old
    shoe revealed, new commitment, the cut card).
    """
    require_dealer_or_reader(actor, table)
    if actor.terminal is not None and not is_dealer_terminal_at(actor, table):
        require_dealer_or_reader(Actor(), table)  # card readers do not shuffle
    config = table_config_current(table)
    if config is None:
        raise InvalidConfigurationError(f"{table} has no configuration")
    rules = config_rules(config)
    if cut_card_position is not None and (
        config.shoe_kind != Shoe.Kind.PHYSICAL
        or isinstance(cut_card_position, bool)
        or not 1 <= cut_card_position <= rules.decks * 52
    ):
        raise InvalidCutCardError(
            f"the cut card goes 1 to {rules.decks * 52} cards from the back of a physical shoe",
        )
    with transaction.atomic():
        table_lock(table.pk)
        if Round.objects.filter(table=table).open().exists():
            raise RoundInProgressError("a round is in progress; shuffle after it")
        old = shoe_current(table)
        now = timezone.now()
        if old is not None:
            Shoe.objects.filter(pk=old.pk).update(retired_at=now)
        order: list[str] | None = None
        secret = ""
        commitment = ""
        if config.shoe_kind == Shoe.Kind.VIRTUAL:
            order = [card.code for card in shoe_cards(rules.decks)]
            SystemRandom().shuffle(order)
            secret = secrets.token_hex(32)
            commitment = shoe_commitment(secret, order)
        shoe = Shoe.objects.create(
            table=table,
            kind=config.shoe_kind,
            decks=rules.decks,
            order=order,
            secret=secret,
            commitment=commitment,
            shuffled_by=actor.user,
            cut_card_position=cut_card_position,
        )
        actor.audit(
            action="shoe.shuffled",
            object_type="tables.shoe",
            object_id=shoe.pk,
            before=(
                {
                    "shoe_id": old.pk,
                    "rounds_dealt": old.rounds_dealt,
                    "commitment": old.commitment,
                    "revealed_secret": old.secret,
                }
                if old is not None
                else None
            ),
            after={
                "table": table.name,
                "kind": shoe.kind,
                "decks": shoe.decks,
                "commitment": commitment,
                "cut_card_position": cut_card_position,
            },
        )
    return shoe
