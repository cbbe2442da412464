"""``python -m workbench compile``: every paper's kernels compiled once, before a notebook.

The compile steps are real calls of the papers' public functions (a renamed keyword or a
narrowed range breaks them here, not in a user's setup); after them a kernel loads from
the cache instead of compiling, and a second compile of the same code is a no-op.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from workbench import warm
from workbench.validation import ParameterError


@pytest.mark.parametrize("step", [s for g in warm.GROUPS for s in g], ids=lambda s: s.__name__)
def test_every_compile_step_is_a_valid_call(step):
    step()  # the suite's cache is compiled by run.sh: this loads and runs, seconds in all


def test_the_groups_cover_every_paper_once():
    from workbench.registry import PAPERS

    names = [s.__name__.lstrip("_") for g in warm.GROUPS for s in g]
    assert sorted(names) == sorted({p.topic for p in PAPERS.values()} | {"arena"})


# A fresh kernel cache in a child process: compile one group (the Erlang-B kernel, the
# cheapest to compile), then count what the same kernel compiles in a second process.
_CHILD = textwrap.dedent(
    """
    import json, sys
    from numba.core import event
    compiled = []
    class Listen(event.Listener):
        def on_start(self, ev):
            compiled.append(getattr(ev.data["dispatcher"], "py_func").__qualname__)
        def on_end(self, ev):
            pass
    event.register("numba:compile", Listen())
    from workbench import erlang, warm
    def _erlang():
        erlang.erlang_b(4, 2.0)
    warm.GROUPS = ((_erlang,),)
    out = {"first": None, "second": None}
    if sys.argv[1] == "compile":
        out["first"] = warm.compile_kernels(n_workers=1)
        out["second"] = warm.compile_kernels(n_workers=1)
    erlang.erlang_b(12, 7.5)  # another call of the same types, as a notebook would make
    out["compiled"] = [n for n in compiled if n.startswith("erlang")]
    print(json.dumps(out))
    """
)


def _child(tmp_path, mode: str) -> dict:
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
        "WORKBENCH_NUMBA_BASE": str(tmp_path / "numba"),
    }
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, mode], capture_output=True, text=True, env=env, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_after_compile_a_kernel_loads_instead_of_compiling(tmp_path):
    cold = _child(tmp_path / "cold", "call")  # nothing compiled before: the call compiles
    assert cold["compiled"] == ["erlang_b_kernel"]
    warmed = _child(tmp_path / "warm", "compile")
    assert [name for name, _ in warmed["first"]] == ["erlang"]
    assert warmed["second"] == []  # the mark of this code's compile: a no-op
    assert warmed["compiled"] == ["erlang_b_kernel"]  # once, in compile_kernels
    again = _child(tmp_path / "warm", "call")  # a later process: loaded from the cache
    assert again["compiled"] == []


def test_compile_kernels_refuses_bad_arguments():
    with pytest.raises(ParameterError, match="n_workers"):
        warm.compile_kernels(n_workers=3)
    with pytest.raises(ParameterError, match="force"):
        warm.compile_kernels(force="yes")
