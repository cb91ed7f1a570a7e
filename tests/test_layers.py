"""The layers hold in the source: no module of ours imports one of ours inside a function (an
import inside a function hides a cycle, and a cycle says a layer is wrong), and the modules'
imports form no cycle. Which app may import which is import-linter's ``layers`` contract
(pyproject.toml, ``make importlint``); this test reads what it cannot: where an import stands.

An ``AppConfig.ready`` may import its own app's modules (signal receivers, checks, job kinds,
which need the models loaded); nothing else imports inside a function. The code folders are
``tests.code.CODE``, migrations left out. A module's imports are those run as it loads, those
under ``if TYPE_CHECKING:`` included (a cycle the type checker follows is a cycle still).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.code import CODE

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = frozenset(CODE)


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _code_files(root: Path, packages: tuple[str, ...]) -> list[Path]:
    return [
        path
        for top in packages
        for path in sorted((root / top).rglob("*.py"))
        if "migrations" not in path.relative_to(root).parts
    ]


def _imported(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    """The modules (or, for ``from x import name``, the candidates ``x.name`` then ``x``) an
    import statement names, relative imports resolved."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join([*package, base] if base else package)
    return [f"{base}.{alias.name}" for alias in node.names] + [base]


def _ours(name: str) -> bool:
    return name.split(".")[0] in PACKAGES


def _is_app_config(node: ast.ClassDef) -> bool:
    return any(
        (isinstance(base, ast.Name) and base.id == "AppConfig")
        or (isinstance(base, ast.Attribute) and base.attr == "AppConfig")
        for base in node.bases
    )


class _Scan(ast.NodeVisitor):
    """A module's imports: those run as the module loads, and those inside functions (with the
    function's dotted name, and whether it is an ``AppConfig.ready``)."""

    def __init__(self) -> None:
        self.module_level: list[ast.Import | ast.ImportFrom] = []
        self.in_functions: list[tuple[ast.Import | ast.ImportFrom, str, bool]] = []
        self._scopes: list[ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef] = []

    def _scope(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._scopes.append(node)
        self.generic_visit(node)
        self._scopes.pop()

    visit_ClassDef = _scope
    visit_FunctionDef = _scope
    visit_AsyncFunctionDef = _scope

    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        if not any(isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef) for scope in self._scopes):
            self.module_level.append(node)
            return
        scopes = self._scopes
        is_ready = (
            len(scopes) == 2
            and isinstance(scopes[0], ast.ClassDef)
            and _is_app_config(scopes[0])
            and scopes[1].name == "ready"
        )
        self.in_functions.append((node, ".".join(scope.name for scope in scopes), is_ready))

    visit_Import = _import
    visit_ImportFrom = _import


def _scan(path: Path) -> _Scan:
    scan = _Scan()
    scan.visit(ast.parse(path.read_text(), filename=str(path)))
    return scan


def _statement(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> tuple[str, str]:
    """The module an import statement reads from, relative imports resolved, and the statement
    as it would be written absolutely."""
    names = ", ".join(alias.name for alias in node.names)
    if isinstance(node, ast.Import):
        return node.names[0].name, f"import {names}"
    base = _imported(node, module, is_package)[-1]
    return base, f"from {base} import {names}"


def function_level_imports(
    root: Path = ROOT, packages: tuple[str, ...] = CODE, allowed: frozenset[str] = frozenset()
) -> list[str]:
    """Each import of our modules inside a function, as ``path:line: function: statement``,
    but for an ``AppConfig.ready``'s imports of its own app, and the modules in ``allowed``."""
    found = []
    for path in _code_files(root, packages):
        relative = path.relative_to(root).as_posix()
        if relative in allowed:
            continue
        module = _module_name(path, root)
        app = module.split(".")[0]
        for node, function, is_ready in _scan(path).in_functions:
            if isinstance(node, ast.Import):
                read = [alias.name for alias in node.names if _ours(alias.name)]
                statements = [f"import {name}" for name in read]
            else:
                base, statement = _statement(node, module, path.name == "__init__.py")
                read, statements = ([base], [statement]) if _ours(base) else ([], [])
            for name, statement in zip(read, statements, strict=True):
                if is_ready and name.split(".")[0] == app:
                    continue
                found.append(f"{relative}:{node.lineno}: {function}: {statement}")
    return found


def import_graph(root: Path = ROOT, packages: tuple[str, ...] = CODE) -> dict[str, set[str]]:
    """Our modules and the modules of ours each imports as it loads (``from x import y`` is an
    edge to the module ``x.y`` when there is one, else to ``x``; and to the packages above it,
    whose ``__init__`` runs first, unless the importer is inside them)."""
    files = {_module_name(path, root): path for path in _code_files(root, packages)}
    graph: dict[str, set[str]] = {module: set() for module in files}
    for module, path in files.items():
        for node in _scan(path).module_level:
            candidates = _imported(node, module, path.name == "__init__.py")
            if isinstance(node, ast.Import):
                targets = [name for name in candidates if name in files]
            else:
                targets = [name for name in candidates[:-1] if name in files] or [
                    name for name in candidates[-1:] if name in files
                ]
            for target in targets:
                # Loading a module runs its packages' __init__ first: an import of ``a.b.c`` from
                # outside ``a.b`` reads ``a.b`` (and ``a``) too.
                parts = target.split(".")
                packages = [".".join(parts[:end]) for end in range(1, len(parts))]
                graph[module].update(
                    package
                    for package in packages
                    if package in files and package != module and not module.startswith(package + ".")
                )
                if target != module:
                    graph[module].add(target)
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (``[a, b, ..., a]``) per group of modules that import each other, found by a
    depth-first search that follows the imports in name order."""
    state: dict[str, int] = {}  # 1: on the path being followed, 2: done
    path: list[str] = []
    cycles: list[list[str]] = []
    seen_in_cycle: set[str] = set()

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                cycle = [*path[path.index(target) :], target]
                if not seen_in_cycle.intersection(cycle[:-1]):
                    cycles.append(cycle)
                seen_in_cycle.update(cycle)
            elif target not in state:
                visit(target)
        path.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)
    return cycles


def test_no_module_of_ours_is_imported_inside_a_function():
    assert function_level_imports() == []


def test_the_modules_import_each_other_in_no_cycle():
    assert [" -> ".join(cycle) for cycle in import_cycles(import_graph())] == []


# ------------------------------------------------------------------------ the scan, on samples


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_scan_sees_an_import_inside_a_function(tmp_path):
    _write(
        tmp_path,
        {
            "casino/__init__.py": "",
            "casino/jobs.py": (
                "import json\n"
                "from casino.models import Job\n"
                "def dispatch():\n"
                "    import reportlab\n"
                "    from casino.tasks import run\n"
                "    from . import audit\n"
                "class Runner:\n"
                "    def ready(self):\n"
                "        import wallet.models\n"
            ),
            "casino/apps.py": (
                "from django.apps import AppConfig\n"
                "class CasinoConfig(AppConfig):\n"
                "    def ready(self):\n"
                "        from casino import signals\n"
                "        from tables.seeding import steps\n"
            ),
            "casino/migrations/0002_move.py": "def forwards():\n    from casino.models import Table\n",
        },
    )

    found = function_level_imports(tmp_path, ("casino",))

    assert found == [
        "casino/apps.py:5: CasinoConfig.ready: from tables.seeding import steps",
        "casino/jobs.py:5: dispatch: from casino.tasks import run",
        "casino/jobs.py:6: dispatch: from casino import audit",
        "casino/jobs.py:9: Runner.ready: import wallet.models",
    ]
    assert function_level_imports(tmp_path, ("casino",), allowed=frozenset({"casino/jobs.py"})) == [
        "casino/apps.py:5: CasinoConfig.ready: from tables.seeding import steps"
    ]


def test_the_scan_finds_a_cycle_and_names_it(tmp_path):
    _write(
        tmp_path,
        {
            "casino/__init__.py": "",
            "casino/jobs.py": "from casino.tasks import run\n",
            "casino/tasks.py": "import json\nfrom casino import audit\n",
            "casino/audit.py": "from casino.jobs import start\n",
            "casino/models.py": "",
            "wallet/__init__.py": "",
            "wallet/services.py": "from casino.models import Casino\nfrom . import selectors\n",
            "wallet/selectors.py": "def read():\n    from wallet.services import write\n",
        },
    )

    graph = import_graph(tmp_path, ("casino", "wallet"))

    # casino.models is read with the package casino (its __init__ runs first); wallet.selectors
    # is wallet.services's sibling, already inside the package it is loaded from.
    assert graph["wallet.services"] == {"casino", "casino.models", "wallet.selectors"}
    assert graph["wallet.selectors"] == set()
    assert import_cycles(graph) == [["casino.audit", "casino.jobs", "casino.tasks", "casino.audit"]]
