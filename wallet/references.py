"""What a hold's reference names, in the words of the app that placed it. The wallet stores a
reference as a type and an id (``Hold.reference_type``, ``reference_id``: a round, a canasta
game) and knows nothing of those records; the app that owns them registers how to number them
for the cage's pages (the live tables: a round's number at its table)."""

from __future__ import annotations

from collections.abc import Callable, Collection

# For a reference type, the numbers to show for a set of reference ids (those it knows).
Numbering = Callable[[Collection[int]], dict[int, int]]

_NUMBERINGS: dict[str, Numbering] = {}


def reference_numbering_register(reference_type: str, numbering: Numbering) -> None:
    """Called from the owning app's ``AppConfig.ready``."""
    _NUMBERINGS[reference_type] = numbering


def reference_numbers(reference_type: str, reference_ids: Collection[int]) -> dict[int, int]:
    """The numbers of these references of one type; empty for a type nobody numbers."""
    numbering = _NUMBERINGS.get(reference_type)
    if numbering is None or not reference_ids:
        return {}
    return numbering(reference_ids)
