"""One lock order, the rule in the source (``casino/locking.py``): a row is locked by the locking
helpers only, and each lock names its own table (``FOR NO KEY UPDATE OF ...``), so that a lock
never spreads to a row read along with it (the casino, the table), and foreign-key checks of other
transactions (``FOR KEY SHARE``, made at their commit while they hold the audit chain) never wait
on it. The commands that once deadlocked race in ``tests/wallet/test_lock_order_pairs.py`` and
``tests/tables/test_lock_order_pairs.py``; all of them at once in ``tests/test_mixed_stress.py``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from tests.code import APPS

ROOT = Path(__file__).resolve().parent.parent

# The modules that may lock rows: the locking helpers, and the raw SQL modules for the statements
# measured to pay (each lock there names its table with OF).
LOCKING_MODULES = {"casino/locking.py", "wallet/locking.py", "tables/locking.py"}
SQL_MODULES = {"casino/sql.py", "wallet/sql.py", "tables/sql.py"}
# Django's queryset methods that take a row lock of their own.
LOCKING_SHORTCUTS = {"update_or_create", "aupdate_or_create"}
DOCUMENTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# SQL keywords are upper case in this code base; prose ("waits for updates") is not SQL.
RAW_LOCK = re.compile(r"\bFOR\s+(?:NO\s+KEY\s+UPDATE|UPDATE|KEY\s+SHARE|SHARE)\b(?P<rest>[^;]*)")


def _sources() -> Iterator[tuple[str, ast.Module]]:
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if "/migrations/" in relative:
                continue
            yield relative, ast.parse(path.read_text(), relative)


def _row_locks(tree: ast.Module) -> Iterator[ast.Call]:
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "select_for_update"
        ):
            yield node


def _locking_shortcuts(tree: ast.Module) -> Iterator[ast.Call]:
    """Calls of Django's ``update_or_create`` (and its async twin), which locks the row with a
    ``select_for_update()`` of its own: FOR UPDATE, without OF."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in LOCKING_SHORTCUTS
        ):
            yield node


def _docstrings(tree: ast.Module) -> set[int]:
    nodes = [tree, *(node for node in ast.walk(tree) if isinstance(node, DOCUMENTED))]
    return {
        id(node.body[0].value)
        for node in nodes
        if node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
    }


def _raw_locks(tree: ast.Module) -> Iterator[tuple[int, str, str]]:
    """Row-locking clauses in the SQL literals of a module (parts of f-strings included; the
    docstrings, which speak of locks, left out)."""
    docstrings = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            for match in RAW_LOCK.finditer(node.value):
                yield node.lineno, match.group(0), match.group("rest")


def lock_rule_offences(sources: Iterator[tuple[str, ast.Module]]) -> list[str]:
    """Every place that breaks the rule, as ``path:line: what``."""
    offences: list[str] = []
    for path, tree in sources:
        for call in _row_locks(tree):
            if path not in LOCKING_MODULES:
                offences.append(f"{path}:{call.lineno}: select_for_update outside the locking helpers")
            if not any(keyword.arg == "of" for keyword in call.keywords):
                offences.append(f"{path}:{call.lineno}: select_for_update without of=")
        for call in _locking_shortcuts(tree):
            name = call.func.attr if isinstance(call.func, ast.Attribute) else "?"
            offences.append(
                f"{path}:{call.lineno}: {name} locks the row (FOR UPDATE without OF): "
                "take it with a locking helper and save"
            )
        for line, clause, rest in _raw_locks(tree):
            if path not in LOCKING_MODULES | SQL_MODULES:
                offences.append(f"{path}:{line}: raw row lock outside the locking and SQL modules")
            if not re.match(r"\s+OF\b", rest):
                offences.append(f"{path}:{line}: raw row lock without OF: {clause.strip()[:60]}")
    return offences


# ------------------------------------------------------------------------------------ the rule


def test_every_row_lock_is_taken_by_a_locking_helper_and_names_its_table() -> None:
    assert lock_rule_offences(_sources()) == []


def test_the_rule_catches_a_lock_without_of_and_a_lock_outside_the_helpers() -> None:
    # given a service that locks a transfer with its casino, and raw SQL locking without OF
    service = ast.parse(
        "def transfer_reverse(pk):\n"
        "    Transfer.objects.select_for_update().select_related('casino').get(pk=pk)\n"
        "SQL = 'SELECT 1 FROM casino_player WHERE id = %s FOR NO KEY UPDATE'\n"
    )
    helper = ast.parse("def rows_lock(q):\n    return q.select_for_update(no_key=True, of=('self',))\n")
    raw = ast.parse("SQL = 'SELECT 1 FROM casino_player p WHERE p.id = %s FOR NO KEY UPDATE OF p'\n")
    # when the rule reads them
    offences = lock_rule_offences(
        iter([("wallet/services.py", service), ("wallet/locking.py", helper), ("tables/sql.py", raw)])
    )
    # then the service's lock is named twice (no of=, not a helper), its raw lock twice, the
    # helper and the raw lock with OF in an SQL module not at all
    assert offences == [
        "wallet/services.py:2: select_for_update outside the locking helpers",
        "wallet/services.py:2: select_for_update without of=",
        "wallet/services.py:3: raw row lock outside the locking and SQL modules",
        "wallet/services.py:3: raw row lock without OF: FOR NO KEY UPDATE",
    ]


def test_the_rule_catches_update_or_create_which_locks_without_of() -> None:
    # given a service that resets a login state with update_or_create, and one that locks the
    # state with the helper and saves it
    service = ast.parse(
        "def staff_login(user):\n"
        "    StaffLoginState.objects.update_or_create(user=user, defaults={'failed_attempts': 0})\n"
        "async def staff_login_async(user):\n"
        "    await StaffLoginState.objects.aupdate_or_create(user=user, defaults={})\n"
    )
    helper = ast.parse(
        "def staff_login(user):\n"
        "    state = staff_login_state_lock(user_id=user.pk)\n"
        "    state.save(update_fields=['failed_attempts'])\n"
    )
    # when the rule reads them
    offences = lock_rule_offences(iter([("casino/services.py", service), ("casino/views.py", helper)]))
    # then both shortcuts are named, the helper's lock and save not at all
    assert offences == [
        "casino/services.py:2: update_or_create locks the row (FOR UPDATE without OF): "
        "take it with a locking helper and save",
        "casino/services.py:4: aupdate_or_create locks the row (FOR UPDATE without OF): "
        "take it with a locking helper and save",
    ]
