"""Who gives a command is one type, ``casino.actors.Actor``: every function of the apps that takes
the one who acts takes it as ``actor: Actor``, never as an untyped value, a bare user or a name
(``by``, ``cashier``, ``requested_by``...), so the audit trail, the round log and the four-eyes
capability always know the person, the role and the terminal."""

from __future__ import annotations

import ast
from pathlib import Path

from casino.actors import Actor
from tests.code import APPS

ROOT = Path(__file__).resolve().parents[2]

# The names the back office used for the one who acts before it had one type for it.
OLD_NAMES = frozenset({"by", "cashier", "requested_by", "approved_by", "rejected_by", "decided_by"})
# The audit trail's own writer, under ``Actor.audit``: it stores the person, the name, the role and
# the terminal apart (casino.actors imports it, so it cannot take an Actor).
WRITER = ("casino/audit.py", "audit_append")


def _offences(path: Path, root: Path = ROOT) -> list[str]:
    found = []
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if (path.relative_to(root).as_posix(), node.name) == WRITER:
            continue
        arguments = node.args
        for argument in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
            where = f"{path.relative_to(root)}:{node.lineno} {node.name}({argument.arg})"
            annotation = ast.unparse(argument.annotation) if argument.annotation else ""
            if argument.arg == "actor" and annotation != "Actor":
                found.append(f"{where}: actor: {annotation or 'untyped'}")
            elif argument.arg in OLD_NAMES:
                found.append(f"{where}: the one who acts is an actor: Actor")
    return found


def _app_files() -> list[Path]:
    return [
        path for top in APPS for path in sorted((ROOT / top).rglob("*.py")) if "migrations" not in path.parts
    ]


def test_every_function_of_the_apps_takes_the_one_who_acts_as_a_typed_actor():
    offences = [line for path in _app_files() for line in _offences(path)]
    assert offences == []


def test_the_scan_sees_an_untyped_actor_and_the_old_names(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from typing import Any\n"
        "def kept(*, actor: Actor) -> None: ...\n"
        "def loose(*, actor: Any) -> None: ...\n"
        "def bare(actor): ...\n"
        "def named(*, by: User) -> None: ...\n"
    )
    assert _offences(sample, tmp_path) == [
        "sample.py:3 loose(actor): actor: Any",
        "sample.py:4 bare(actor): actor: untyped",
        "sample.py:5 named(by): the one who acts is an actor: Actor",
    ]


def test_an_actor_names_who_acts_in_the_audit_trail():
    assert (Actor.automatic("seed").name, Actor.automatic("seed").role) == ("seed", "system")
    assert (Actor().name, Actor().role) == ("system", "system")
