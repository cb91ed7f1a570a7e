"""A new table: the table, its boxes, its tray accounts and its first configuration version."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from casino.actors import Actor, require_staff
from casino.errors import InvalidConfigurationError
from casino.models import Casino, Game, Pit, RuleSet, Table
from tables.errors import TableNameTakenError
from tables.services.config_changes import table_config_change
from tables.services.seats import boxes_ensure
from wallet.services import table_accounts_open

TABLE_NAME_MAX_LENGTH = 30


def table_create(*, casino: Casino, pit: Pit, name: str, rule_set: RuleSet, actor: Actor) -> Table:
    """A new blackjack table in ``pit``: its seven boxes, its tray accounts and its first
    configuration version (the default limits and settings, the rule set's current version, the
    default paytables), closed for play until a dealer or a pit boss opens it.

    Needs ``casino.configure_tables``. Audited as ``table.created`` (then ``table.config_changed``
    for its first version). Raises ``permission_denied``, ``invalid_configuration`` (no name, a pit
    of another casino, a rule set that is not blackjack or has no approved version),
    ``table_name_taken``.
    """
    require_staff(actor, "configure_tables")
    name = name.strip()
    if not name or len(name) > TABLE_NAME_MAX_LENGTH:
        raise InvalidConfigurationError(f"Give the table a name of 1 to {TABLE_NAME_MAX_LENGTH} characters.")
    if pit.casino_id != casino.pk:
        raise InvalidConfigurationError("The pit belongs to another casino.")
    if rule_set.game != Game.BLACKJACK:
        raise InvalidConfigurationError("A blackjack table needs a blackjack rule set.")
    with transaction.atomic():
        try:
            with transaction.atomic():
                table = Table.objects.create(
                    casino=casino, pit=pit, name=name, game=rule_set.game, rule_set=rule_set
                )
        except IntegrityError as error:
            raise TableNameTakenError(f"The casino has a table named {name} already.") from error
        boxes_ensure(table=table)
        table_accounts_open(table=table)
        actor.audit(
            action="table.created",
            object_type="tables.table",
            object_id=table.pk,
            after={"name": name, "pit": pit.name, "rule_set": rule_set.name},
        )
        table_config_change(table=table, actor=actor, changes={})
    return table
