"""Money is integer minor units, never a float: no float literal and no ``float()`` in the code
that computes or moves money (the wallet, the table services and selectors, the blackjack engine
with its settlement). Fractional payouts are exact ``Fraction``s (games/blackjack/
settlement.py). The odds module (games/odds/) computes probabilities, not amounts, with
numpy floats (docs/odds.md); the simulation draws its choices with float chances; neither is
scanned here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MONEY_FOLDERS = [
    ROOT / "wallet",
    ROOT / "tables" / "services",
    ROOT / "cardroom" / "services",
    ROOT / "games" / "blackjack",
]
MONEY_CODE = [
    *(path for folder in MONEY_FOLDERS for path in sorted(folder.glob("*.py"))),
    ROOT / "tables" / "selectors.py",
    ROOT / "tables" / "api" / "serializers.py",
]


def _floats(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Constant) and isinstance(node.value, float):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: float literal {node.value!r}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float":
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: float()")
    return found


@pytest.mark.parametrize("path", MONEY_CODE, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_float_in_money_code(path: Path) -> None:
    assert _floats(path) == []


def test_every_money_folder_has_code() -> None:
    # A folder that moved would leave its glob empty and the scan silently passing.
    assert all(any(folder.glob("*.py")) for folder in MONEY_FOLDERS)


def test_the_scan_sees_a_float() -> None:
    sample = ROOT / "games" / "odds" / "main_game.py"
    assert any("float()" in line for line in _floats(sample))
