"""Each app writes its own rows through its public services: no module of the project imports a
private name (``_name``) from another app, nor from another module of its own app's services.
The layers between the apps are import-linter contracts (pyproject.toml, ``make importlint``)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.code import CODE as APP_CODE

ROOT = Path(__file__).resolve().parents[1]

CODE = (*APP_CODE, "bench")


def _private_imports(path: Path, root: Path = ROOT) -> list[str]:
    found = []
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(
                        f"{path.relative_to(root)}:{node.lineno}: from {node.module} import {alias.name}"
                    )
    return found


def _code_files() -> list[Path]:
    return [
        path for top in CODE for path in sorted((ROOT / top).rglob("*.py")) if "migrations" not in path.parts
    ]


def test_no_module_imports_a_private_name_of_another():
    offenders = [line for path in _code_files() for line in _private_imports(path)]
    assert offenders == []


def test_the_scan_sees_a_private_import(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import os\nfrom wallet.services import _hidden, hold_place\n")
    assert _private_imports(sample, tmp_path) == ["sample.py:2: from wallet.services import _hidden"]
