"""Cards as the round's screens draw them: ``10♠``, red for hearts and diamonds, a hidden hole
card as its back."""

from __future__ import annotations

from dataclasses import dataclass

from games.cards import Card

SUIT_SYMBOLS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}


@dataclass(frozen=True)
class CardView:
    code: str
    rank: str
    suit_symbol: str
    is_red: bool
    is_hidden: bool = False


def card_view(code: str) -> CardView:
    """A card code of the table's state (``TS``) as the screens draw it: ``10♠``, red for hearts
    and diamonds."""
    return card_view_of(Card.parse(code))


def card_view_of(card: Card, hidden: bool = False) -> CardView:
    """An engine card as the screens draw it, or its back when ``hidden``."""
    if hidden:
        return CardView(code="", rank="", suit_symbol="", is_red=False, is_hidden=True)
    rank = "10" if card.rank == "T" else card.rank
    return CardView(
        code=card.code, rank=rank, suit_symbol=SUIT_SYMBOLS[card.suit], is_red=card.suit in ("H", "D")
    )


def card_text(code: object) -> str:
    """A card code of an event's payload as a line of text (``10♠``), or as it came when it is no
    card (a misscan may carry anything the reader sent)."""
    try:
        card = Card.parse(str(code))
    except Exception:  # a misscan may carry anything the reader sent
        return str(code)
    return f"{'10' if card.rank == 'T' else card.rank}{SUIT_SYMBOLS[card.suit]}"


__all__ = ["SUIT_SYMBOLS", "CardView", "card_text", "card_view", "card_view_of"]
