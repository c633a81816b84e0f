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
