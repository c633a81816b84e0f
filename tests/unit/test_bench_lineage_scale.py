"""Tests for the scale benchmark's corpus generator (no shared data needed)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.benchmarks import bench_lineage_scale as scale


@pytest.fixture
def vocab(monkeypatch):
    monkeypatch.setitem(scale._SOURCE, "vocab", [f"v{k}" for k in range(1000)])


def _longest_untouched(before: list[str], after: list[str]) -> int:
    best = run = 0
    for a, b in zip(before, after, strict=True):
        run = run + 1 if a == b else 0
        best = max(best, run)
    return best


@pytest.mark.parametrize("max_verbatim", [None, 12])
def test_perturb_leaves_no_long_verbatim_run(vocab, max_verbatim):
    words = [f"w{k}" for k in range(5000)]
    out = scale._perturb(list(words), 0.3, np.random.default_rng(3), max_verbatim)
    longest = _longest_untouched(words, out)
    if max_verbatim is None:
        assert longest >= 12  # replacing words at random leaves long runs whole
    else:
        assert longest < max_verbatim
    # the forced edits come after the random ones: the rest of the text is unchanged
    plain = scale._perturb(list(words), 0.3, np.random.default_rng(3))
    changed = sum(a != b for a, b in zip(plain, out, strict=True))
    assert changed < 0.02 * len(words)
