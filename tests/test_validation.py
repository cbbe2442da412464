"""The shared validation helpers: unknown keywords, memory budget, bools."""

import numpy as np
import pytest

from workbench.validation import ParameterError, check_bool, check_budget, reject_unknown


def test_an_unknown_keyword_is_refused_with_the_closest_name():
    with pytest.raises(ParameterError, match="'decison_time'. Did you mean 'decision_time'"):
        reject_unknown("run_once", {"decison_time": 0.0}, ["decision_time", "seed"])
    with pytest.raises(ParameterError, match="unexpected keyword argument 'zzz'. It takes"):
        reject_unknown("run_once", {"zzz": 1}, ["decision_time", "seed"])
    reject_unknown("run_once", {"seed": 1}, ["decision_time", "seed"])


def test_work_above_the_memory_budget_is_refused_before_it_starts(monkeypatch):
    import workbench.validation as v

    monkeypatch.setattr(v, "MEMORY_BUDGET", 1e9)
    with pytest.raises(ParameterError, match="'n' parameter of f would need about 2 GB"):
        check_budget("f", "n", 10**8, 2e9, what="per-request records")
    with pytest.raises(ParameterError):
        check_budget("f", "n", 1, float("nan"))
    check_budget("f", "n", 10, 1e8)


def test_check_bool_accepts_only_bools():
    assert check_bool(np.bool_(True), "gentle", "f") is True
    for bad in ("False", 0, 1, 2, None):
        with pytest.raises(ParameterError, match="'gentle' parameter of f must be a bool"):
            check_bool(bad, "gentle", "f")
