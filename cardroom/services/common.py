"""What the card room's game services and its settlement share: who hosts a table, a game's
rules, the game's lock, the hash of a deal's events, the next dealer. Both import it; it imports
neither."""

from __future__ import annotations

from cardroom.errors import CanastaNoCanastaGameError
from cardroom.models import CanastaDeal, CanastaDealEvent, CanastaGame
from casino.actors import Actor
from casino.errors import PermissionRefusedError
from casino.errors import game as engine_call
from casino.event_log import canonical_digest, event_digest
from casino.hints import hint, table_topics
from casino.locking import row_lock
from casino.models import Table
from casino.table_access import is_dealer_terminal_at, require_terminal_at
from games.canasta import CanastaRules, preset
from games.canasta.dealing import next_dealer


def require_host(actor: Actor, table: Table) -> None:
    """The host of a card-room table: a staff user who runs tables (a dealer) or supervises the
    pit (a pit boss), the table's dealer terminal, or the system. Anyone else: ``permission_denied``."""
    if actor.system:
        return
    require_terminal_at(actor, table)
    if actor.has_perm("run_table") or actor.has_perm("supervise_pit") or is_dealer_terminal_at(actor, table):
        return
    raise PermissionRefusedError("Only the table's host may do that.")


def game_rules(game: CanastaGame) -> CanastaRules:
    """The engine's rules of a game: its preset with the options as played."""
    return engine_call(lambda: preset(game.preset, game.options))


def game_lock(game_id: int) -> CanastaGame:
    """The game row, locked (FOR NO KEY UPDATE), with its table: every command on a game and its
    deals takes it first. It registers the table's hint (``casino/hints.py``: the host's page,
    the pit floor) for the commit, so that no command on a game can forget it; a refusal, rolled
    back, hints nothing."""
    game = row_lock(CanastaGame.objects.select_related("table").filter(pk=game_id))
    if game is None:
        raise CanastaNoCanastaGameError(f"no canasta game {game_id}")
    hint(*table_topics(game.table))
    return game


def deal_hash(deal: CanastaDeal) -> str:
    """The hash the deal's ``canasta.deal_scored`` audit record carries: the deal's id, game and
    number with the digest of every event in sequence order."""
    events = CanastaDealEvent.objects.filter(deal=deal).order_by("sequence")
    return canonical_digest(
        {
            "deal": deal.pk,
            "game": deal.game_id,
            "number": deal.number,
            "events": [event_digest(event) for event in events],
        }
    )


def next_dealer_seat(game: CanastaGame, dealer: int) -> int:
    """The seat that deals after ``dealer`` under the game's rules (the engine's ``next_dealer``)."""
    return next_dealer(game_rules(game), dealer)
