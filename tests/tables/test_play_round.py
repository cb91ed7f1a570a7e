"""``manage.py play_round FILE`` prints the settlement JSON; a refused script exits 2 with the code."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def test_play_round_prints_the_settlement_json() -> None:
    # given a golden script
    path = GOLDEN / "blackjack_3_2_stake_9_chips.json"
    out = StringIO()
    # when the command plays it
    call_command("play_round", str(path), stdout=out)
    # then it prints the expected settlement
    assert json.loads(out.getvalue()) == json.loads(path.read_text(encoding="utf-8"))["expected"]


def test_play_round_refused_script_exits_2_with_the_engine_code(tmp_path: Path) -> None:
    # given a script whose side bet has no main bet
    script = {
        "profile": "live-american",
        "shoe": ["AS", "9D", "KH", "7C"],
        "boxes": [{"box": 1, "player": "alice", "perfect_pairs_minor": 100}],
    }
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(script), encoding="utf-8")
    out, err = StringIO(), StringIO()
    # when the command plays it
    with pytest.raises(SystemExit) as exit_info:
        call_command("play_round", str(path), stdout=out, stderr=err)
    # then it exits 2, names the code and prints no settlement
    assert exit_info.value.code == 2
    assert err.getvalue().startswith("side_bet_without_main_bet:")
    assert out.getvalue() == ""


def test_play_round_not_json_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("{", encoding="utf-8")
    err = StringIO()
    with pytest.raises(SystemExit) as exit_info:
        call_command("play_round", str(path), stderr=err)
    assert exit_info.value.code == 2
    assert err.getvalue().startswith("invalid_round_script:")
