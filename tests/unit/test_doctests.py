"""The docstring examples of every module run, and hold."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

SUBPACKAGES = ("schemas", "warehouse", "tasks", "flows")


def _modules() -> list[str]:
    names = []
    for sub in SUBPACKAGES:
        pkg = importlib.import_module(f"affidavit.{sub}")
        names += [m.name for m in pkgutil.walk_packages(pkg.__path__, f"affidavit.{sub}.")]
    return sorted(names)


def test_every_subpackage_has_modules_with_examples() -> None:
    finder = doctest.DocTestFinder()
    with_examples = {name.split(".")[1] for name in _modules()
                     if any(t.examples for t in finder.find(importlib.import_module(name)))}
    assert with_examples >= {"tasks", "flows", "warehouse"}


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                             report=True, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


def test_no_example_names_an_exception_by_its_module_path() -> None:
    """An expected traceback names its exception without the module path.

    The module is ``affidavit.tasks.sanitize`` when imported, ``tasks.sanitize`` under
    ``pytest --doctest-modules tasks/sanitize.py``: an example that spells the path out holds
    under one of the two only.
    """
    finder = doctest.DocTestFinder()
    qualified = []
    for name in _modules():
        for test in finder.find(importlib.import_module(name)):
            for example in test.examples:
                if example.exc_msg is None:
                    continue
                last = example.want.rstrip("\n").splitlines()[-1]
                exc_name = last.split(":", 1)[0]
                if "." in exc_name:
                    qualified.append(f"{test.name}: {exc_name}")
    assert not qualified, qualified
