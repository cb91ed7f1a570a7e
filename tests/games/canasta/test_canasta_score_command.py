"""``manage.py canasta_score``: the example of docs/canasta-deal.md, the text sheet, errors."""

from __future__ import annotations

import json
import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

DOC = Path(__file__).resolve().parents[3] / "docs" / "canasta-deal.md"


def documented_blocks() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    example = text[text.index("## Example") :]
    return re.findall(r"```(?:json)?\n(.*?)\n```", example, flags=re.S)


def test_the_documented_example_prints_the_documented_report(tmp_path: Path) -> None:
    # given the deal of docs/canasta-deal.md (section 11 E40)
    deal, report, sheet = documented_blocks()[:3]
    path = tmp_path / "deal.json"
    path.write_text(deal, encoding="utf-8")
    # when the command scores it, with and without --json
    out = StringIO()
    call_command("canasta_score", str(path), "--json", stdout=out)
    text = StringIO()
    call_command("canasta_score", str(path), stdout=text)
    # then the output is exactly the documented one: 6000 against 5000, side 0 wins by 1000
    assert json.loads(out.getvalue()) == json.loads(report)
    assert json.loads(out.getvalue())["game"] == {"is_over": True, "winner": 0, "margin": 1000}
    assert text.getvalue().rstrip() == sheet


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"preset": "canasta9"}, "unknown_preset"),
        ({"options": {"wildrule": "LT"}}, "unknown_option"),
        ({"scores": [0]}, "wrong_side_count"),
        ({"went_out": {"side": 1, "player": 0}}, "out_player_holds_cards"),
        ({"stock_exhausted": True}, "impossible_deal"),
    ],
)
def test_an_impossible_deal_prints_its_code_and_exits_2(
    tmp_path: Path, change: dict[str, object], code: str, capsys: pytest.CaptureFixture[str]
) -> None:
    deal = json.loads(documented_blocks()[0])
    deal.update(change)
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(deal), encoding="utf-8")
    err = StringIO()
    with pytest.raises(SystemExit) as exited:
        call_command("canasta_score", str(path), stderr=err)
    assert exited.value.code == 2
    assert err.getvalue().startswith(f"{code}: ")


def test_an_invalid_meld_is_refused_with_the_engines_code(tmp_path: Path) -> None:
    deal = json.loads(documented_blocks()[0])
    deal["sides"][1]["melds"].append(["KS", "QS", "JS"])
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(deal), encoding="utf-8")
    err = StringIO()
    with pytest.raises(SystemExit) as exited:
        call_command("canasta_score", str(path), stderr=err)
    assert exited.value.code == 2 and err.getvalue().startswith("mixed_ranks: ")


def test_unreadable_json_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "deal.json"
    path.write_text("{not json", encoding="utf-8")
    err = StringIO()
    with pytest.raises(SystemExit) as exited:
        call_command("canasta_score", str(path), stderr=err)
    assert exited.value.code == 2 and err.getvalue().startswith("invalid_json: ")
