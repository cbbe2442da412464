"""What a notebook computes at its defaults, shared with the tests that check it.

A figure's quick frame and a paper's quick claims table are the same numbers wherever this
code computes them (every stochastic function is seeded). The notebooks keep them in
:mod:`workbench.memo`'s results cache, keyed by the function, its arguments and the digest
of the code; a test that reads them through :func:`shared` (or draws a figure inside
:func:`results_cache`) checks the numbers of this code, computed once per suite run: by
the notebook's headless run when it came first, by the test otherwise (and then reused by
the notebook). Every assertion still runs on them.

The library's other tests compute afresh (``WORKBENCH_RESULTS_CACHE=0``, tests/conftest.py):
a monkeypatch is invisible to the code digest. Never use this in a test that patches the
code it computes with.
"""

from __future__ import annotations

import contextlib

import pytest

from workbench.memo import cached_call


@contextlib.contextmanager
def results_cache():
    """The results cache on inside the block (``FigureSpec.make``, ``claims_table``)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WORKBENCH_RESULTS_CACHE", "1")
        yield


def shared(func, *args, **kwargs):
    """``func(*args, **kwargs)`` through the results cache, as a notebook calls it."""
    with results_cache():
        return cached_call(func, *args, **kwargs)
