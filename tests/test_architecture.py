"""The dependency rules of ARCHITECTURE.md, checked on the source: who may import whom."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {
    "core": ROOT / "packages/kapi-core/src/kapi/core",
    "formats": ROOT / "packages/kapi-formats/src/kapi/formats",
    "host": ROOT / "packages/kapi-cli/src/kapi/host",
    "cli": ROOT / "packages/kapi-cli/src/kapi/cli",
    "mcp": ROOT / "packages/kapi-mcp/src/kapi/mcp",
    "skill": ROOT / "packages/kapi-skill/src/kapi/skill",
}
ALLOWED = {
    "core": set(),
    "formats": {"core"},
    "host": {"core", "formats", "skill"},
    "cli": {"core", "host", "skill"},
    "mcp": {"core", "host"},
    "skill": set(),
}
THIRD_PARTY_IN_CORE = {"attrs", "cattrs"}


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_packages_import_only_what_the_architecture_allows(package):
    violations = []
    for path in PACKAGES[package].rglob("*.py"):
        for name in imports_of(path):
            parts = name.split(".")
            if parts[0] != "kapi" or len(parts) < 2:
                continue
            other = parts[1]
            if other != package and other not in ALLOWED[package]:
                violations.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not violations, "\n".join(violations)


def test_the_context_core_imports_only_the_core_and_never_the_change_service():
    """``kapi.core.context`` is pure, and a check that folds the log loads no change service."""
    violations = []
    for path in (PACKAGES["core"] / "context").rglob("*.py"):
        for name in imports_of(path):
            if name.startswith("kapi.") and not name.startswith("kapi.core"):
                violations.append(f"{path.relative_to(ROOT)} imports {name}")
            if name.startswith(("kapi.core.change", "kapi.core.check")):
                violations.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not violations, "\n".join(violations)


def test_core_imports_only_attrs_cattrs_and_the_standard_library():
    stdlib = set(sys.stdlib_module_names)
    violations = []
    for path in PACKAGES["core"].rglob("*.py"):
        for name in imports_of(path):
            top = name.split(".")[0]
            if top in stdlib or top in THIRD_PARTY_IN_CORE or top == "kapi":
                continue
            violations.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not violations, "\n".join(violations)


def test_namespace_package_has_no_init():
    for dist in (ROOT / "packages").iterdir():
        assert not (dist / "src" / "kapi" / "__init__.py").exists(), dist


def test_importing_formats_loads_no_parser_library():
    code = (
        "import sys, kapi.formats.registry as r, kapi.formats.home;"
        "r.all_formats(); r.detect('a.docx'); r.detect('a.xml', b'<resources>');"
        "heavy = [m for m in ('lxml', 'openpyxl', 'docx', 'translate', 'ruamel', 'markdown_it') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_kapi_help_does_not_import_the_change_service_or_formats():
    code = (
        "import sys; from click.testing import CliRunner; from kapi.cli.main import cli;"
        "CliRunner().invoke(cli, ['--help']);"
        "print(','.join(m for m in ('kapi.core.change.service', 'kapi.formats.registry', 'cattrs') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_no_test_reads_beside_the_checkout():
    """A user's clone has nothing beside it: tests and benchmarks read only the repository."""
    import re

    outside = re.compile(
        r"""\.\./shared|parent\s*/\s*["']shared["']|parents\[\d\]\s*/\s*["']shared"""
    )
    offenders = []
    for folder in [
        ROOT / "tests",
        ROOT / "bench",
        ROOT / "evals",
        *(ROOT / "packages").glob("*/tests"),
    ]:
        for path in folder.rglob("*.py"):
            if path.name == "test_architecture.py":
                continue
            if outside.search(path.read_text(encoding="utf-8")):
                offenders.append(path.relative_to(ROOT).as_posix())
    assert offenders == []
    assert (ROOT / "tests/conformance/neokapi-change-v1/NOTICE.md").is_file()
    assert (ROOT / "tests/conformance/neokapi-mcp-v1/mcp_tools.frozen.json").is_file()


def test_every_error_kapi_raises_is_a_kapi_error():
    """One error tree: a door maps any public exception of kapi to its code and exit code."""
    import importlib
    import inspect as inspection

    from kapi.core.errors import KapiError

    strays = []
    for source in (ROOT / "packages").glob("*/src"):
        for path in sorted(source.rglob("*.py")):
            parts = path.relative_to(source).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            if name.startswith("kapi.mcp") or name.endswith("__main__"):
                continue
            module = importlib.import_module(name)
            for attribute, value in vars(module).items():
                if (
                    inspection.isclass(value)
                    and issubclass(value, BaseException)
                    and value.__module__ == name
                    and not attribute.startswith("_")
                    and not issubclass(value, KapiError)
                ):
                    strays.append(f"{name}.{attribute}")
    assert strays == []


def test_no_module_binds_a_top_level_name_twice():
    """A second binding of a module constant silently replaces the first for every
    function that reads it (a reader's pattern swapped for a writer's slower one)."""
    twice = []
    for source in (ROOT / "packages").glob("*/src"):
        for path in sorted(source.rglob("*.py")):
            lines: dict[str, int] = {}
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.Assign):
                    names = [target.id for target in node.targets if isinstance(target, ast.Name)]
                elif isinstance(node, ast.AnnAssign) and node.value is not None:
                    names = [node.target.id] if isinstance(node.target, ast.Name) else []
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names = [node.name]
                else:
                    continue
                for name in names:
                    if name in lines and name != "__all__":
                        where = path.relative_to(ROOT)
                        twice.append(f"{where}: {name} (lines {lines[name]}, {node.lineno})")
                    lines[name] = node.lineno
    assert twice == []


def _module_graph() -> dict[str, set[str]]:
    """Every kapi module and the kapi modules it imports, at the top or inside a function.

    Imports under ``if TYPE_CHECKING:`` never run, so they are not edges.
    """
    modules: dict[str, Path] = {}
    for source in (ROOT / "packages").glob("*/src"):
        for path in source.rglob("*.py"):
            parts = path.relative_to(source).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for statement in node.body
            for inner in ast.walk(statement)
        }
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.Import):
                graph[name].update(a.name for a in node.names if a.name in modules)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    if full in modules:
                        graph[name].add(full)
                    elif node.module in modules:
                        graph[name].add(node.module)
    return graph


def test_the_import_graph_has_no_cycle():
    """No module reaches itself through imports, lazy ones included (Tarjan's algorithm)."""
    graph = _module_graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph[node]:
                cycles.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    assert cycles == []
