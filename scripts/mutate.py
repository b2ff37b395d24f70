"""`make mutate`: mutmut on the rule modules, with the mutations a reviewer means by "a broken rule".

mutmut 3 is configured in ``pyproject.toml`` (``[tool.mutmut]``: which files, what to copy, pytest arguments). Two
things cannot be configured there, so this wrapper adjusts mutmut before handing over to its command line:

1. mutmut skips every decorated function (a decorator may have side effects when the function is copied), which
   here means every service: they are all ``@transaction.atomic``. Copying an atomic function is harmless (each copy
   opens its own savepoint), so functions whose only decorators are ``transaction.atomic`` are mutated.
2. mutmut's own operators mostly rewrite string literals and numbers (error texts, log notes), which says little
   about the rules. The operators here are the rule-breaking ones (docs/testing.md "Mutation testing"):
   a flipped comparison (``==``/``!=``, ``<``/``<=``, ``is``/``is not``, ``in``/``not in``), ``and`` for ``or`` and
   back, a dropped ``not``, ``True``/``False`` swapped, a ternary forced down one arm, a dropped ``raise``, a dropped
   early-return guard (``if cond: return ...`` never taken) and a removed ``select_for_update()``.

Usage: ``python scripts/mutate.py [--survivors] [--only-tests PREFIX] [mutmut run arguments...]``, e.g.
``"inventory.services.assets.*"`` for one module. The per-module summary (``scripts/mutation_report.py``) is printed at
the
end. Two options serve a re-check after adding tests, on an existing ``mutants/`` (a killed mutant stays killed when
tests are added, so only the others need running again):

- ``--survivors`` runs again every mutant the last run did not kill;
- ``--only-tests tests/rules/`` runs each mutant against the tests under that prefix only (instead of every test that
  reaches the mutated function): minutes instead of an hour when the new tests all live there.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

import libcst as cst
from mutmut.mutation import file_mutation, mutators

ALLOWED_DECORATORS = frozenset({"transaction.atomic"})
LOCKING_METHODS = frozenset({"select_for_update"})


def _dotted(expr: cst.BaseExpression) -> str:
    parts: list[str] = []
    while isinstance(expr, cst.Attribute):
        parts.append(expr.attr.value)
        expr = expr.value
    if isinstance(expr, cst.Name):
        parts.append(expr.value)
    return ".".join(reversed(parts))


def _only_allowed_decorators(node: cst.CSTNode) -> bool:
    return (
        isinstance(node, cst.FunctionDef)
        and bool(node.decorators)
        and all(_dotted(d.decorator) in ALLOWED_DECORATORS for d in node.decorators)
    )


_original_skip = file_mutation.MutationVisitor._skip_node_and_children


def _skip_node_and_children(self: file_mutation.MutationVisitor, node: cst.CSTNode) -> bool:
    if _only_allowed_decorators(node):
        # Upstream's checks for a function, minus "has a decorator".
        position = self.get_metadata(file_mutation.PositionProvider, node, None)
        if position and position.start.line in self._ignored_node_lines:
            self.ignored_functions.add(node.name.value)
            return True
        return node.name.value in file_mutation.NEVER_MUTATE_FUNCTION_NAMES
    return _original_skip(self, node)


# --- operators ------------------------------------------------------------------------------------------------------

_RULE_SWAPS = {
    cst.LessThan: cst.LessThanEqual,
    cst.LessThanEqual: cst.LessThan,
    cst.GreaterThan: cst.GreaterThanEqual,
    cst.GreaterThanEqual: cst.GreaterThan,
    cst.Equal: cst.NotEqual,
    cst.NotEqual: cst.Equal,
    cst.And: cst.Or,
    cst.Or: cst.And,
}


def operator_flip_comparison_or_boolean(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    """``a == b`` -> ``a != b``, ``a < b`` -> ``a <= b``, ``a and b`` -> ``a or b`` (no arithmetic)."""
    if isinstance(node, cst.ComparisonTarget | cst.BooleanOperation):
        swapped = _RULE_SWAPS.get(type(node.operator))
        if swapped is not None:
            yield node.with_changes(operator=swapped())


def operator_drop_raise(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    """``raise SomeError(...)`` -> ``pass``: the guard or state check no longer refuses (bare re-raises are kept)."""
    if isinstance(node, cst.Raise) and node.exc is not None:
        yield cst.Pass()


def operator_drop_early_return(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    """``if cond: ... return x`` -> ``if False: ...``: an early-exit guard that is never taken."""
    if not isinstance(node, cst.If) or not isinstance(node.body, cst.IndentedBlock) or not node.body.body:
        return
    last = node.body.body[-1]
    if isinstance(last, cst.SimpleStatementLine) and any(isinstance(s, cst.Return) for s in last.body):
        yield node.with_changes(test=cst.Name("False"))


def operator_drop_row_lock(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    """``qs.select_for_update(...)`` -> ``qs``: the re-read no longer locks (only a PostgreSQL race test notices)."""
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in LOCKING_METHODS
    ):
        yield node.func.value


RULE_OPERATORS = [
    (cst.CSTNode, operator_flip_comparison_or_boolean),
    (cst.CSTNode, mutators.operator_keywords),  # is / is not, in / not in
    (cst.UnaryOperation, mutators.operator_remove_unary_ops),  # not x -> x
    (cst.Name, mutators.operator_name),  # True <-> False
    (cst.IfExp, mutators.operator_if_exp),
    (cst.Raise, operator_drop_raise),
    (cst.If, operator_drop_early_return),
    (cst.Call, operator_drop_row_lock),
]


def install() -> None:
    file_mutation.MutationVisitor._skip_node_and_children = _skip_node_and_children
    file_mutation.mutation_operators = RULE_OPERATORS


def only_tests(prefixes: str) -> None:
    """Limit the tests run per mutant to those whose node id starts with one of the comma-separated ``prefixes``."""
    prefix = tuple(prefixes.split(","))
    import mutmut.__main__ as mutmut_main
    from mutmut.state import state

    original = mutmut_main.collect_or_load_stats

    def collect_or_load_stats(*args, **kwargs):
        result = original(*args, **kwargs)
        by_function = state().tests_by_mangled_function_name
        for name, tests in list(by_function.items()):
            by_function[name] = {test for test in tests if test.startswith(prefix)}
        return result

    mutmut_main.collect_or_load_stats = collect_or_load_stats


def main(argv: list[str]) -> int:
    install()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from mutation_report import collect, report
    from mutmut.__main__ import cli

    argv = list(argv)
    if "--only-tests" in argv:
        at = argv.index("--only-tests")
        only_tests(argv[at + 1])
        del argv[at:at + 2]
    if "--survivors" in argv:
        argv.remove("--survivors")
        argv += [name for statuses in collect().values() for name, status in statuses.items() if status != "killed"]

    try:
        cli.main(args=["run", "--max-children", "1", *argv], prog_name="mutmut", standalone_mode=False)
    except SystemExit as exc:  # mutmut exits on a failed clean run
        if exc.code:
            return int(exc.code)
    return report([])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
