"""Who may call what. Table scoping lives here, in one place: a terminal only ever sees and acts
at the table it is placed at, a player only through the session issued at that terminal."""

from __future__ import annotations

from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView

from casino.models import PlayerSession, Terminal


class IsTerminal(BasePermission):
    def has_permission(self, request: Request, view: APIView) -> bool:
        return isinstance(request.user, Terminal)


class IsPlayerTerminal(BasePermission):
    message = "Only a player terminal may do this."
    code = "not_a_player_terminal"

    def has_permission(self, request: Request, view: APIView) -> bool:
        return isinstance(request.user, Terminal) and request.user.kind == Terminal.Kind.PLAYER_TERMINAL


class IsCardReader(BasePermission):
    """Cards come from the table's card reader, or from its dealer terminal (a dealer keying them
    in, a studio's automation)."""

    message = "Only a card reader or a dealer terminal may send cards."
    code = "not_a_card_reader"

    def has_permission(self, request: Request, view: APIView) -> bool:
        return isinstance(request.user, Terminal) and request.user.kind in (
            Terminal.Kind.CARD_READER,
            Terminal.Kind.DEALER_TERMINAL,
        )


class IsDealerTerminal(BasePermission):
    """Running the round (open betting, no more bets, end insurance, settle, shuffle, correct a
    misscan) is the dealer terminal's: a player terminal and a card reader are refused."""

    message = "Only a dealer terminal may do this."
    code = "not_a_dealer_terminal"

    def has_permission(self, request: Request, view: APIView) -> bool:
        return isinstance(request.user, Terminal) and request.user.kind == Terminal.Kind.DEALER_TERMINAL


class HasPlayerSession(BasePermission):
    message = "A player must sign in at this terminal first."
    code = "player_token_missing"

    def has_permission(self, request: Request, view: APIView) -> bool:
        session = request.auth
        return (
            isinstance(request.user, Terminal)
            and isinstance(session, PlayerSession)
            and session.terminal_id == request.user.pk
        )


class AtOwnTable(BasePermission):
    """The ``table_id`` in the path must be the table the terminal (and the player's session) is
    placed at. Anything else is refused with ``wrong_table``, whether or not that table exists."""

    message = "This terminal is not placed at that table."
    code = "wrong_table"

    def has_permission(self, request: Request, view: APIView) -> bool:
        terminal = request.user
        if not isinstance(terminal, Terminal) or terminal.table_id is None:
            return False
        table_id = str(view.kwargs.get("table_id", ""))
        if (
            not (table_id.isascii() and table_id.isdigit())
            or len(table_id) > 12
            or int(table_id) != terminal.table_id
        ):
            return False
        session = request.auth
        return not (isinstance(session, PlayerSession) and session.table_id != terminal.table_id)
