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


def test_check_array_and_broadcast_accept_and_refuse_with_the_shared_message():
    import numpy as np
    import pandas as pd

    from workbench.stats import mean_ci
    from workbench.validation import broadcast, check_array

    assert check_array([1, 2.5], "x", "f", low=0).tolist() == [1.0, 2.5]
    assert check_array([2.0, 3], "n", "f", dtype=int).dtype == np.int64
    for bad in ("a", [1, float("nan")], [[1.0]], [True], None, [1, "a"], [-1]):
        with pytest.raises(ParameterError, match=r"The 'x' parameter of f must be .*\[0, inf\)"):
            check_array(bad, "x", "f", low=0)
    with pytest.raises(ParameterError, match="whole|integers"):
        check_array([2.5], "n", "f", dtype=int)
    assert broadcast(2, "x", "f", 3).tolist() == [2.0, 2.0, 2.0]
    assert broadcast([1, 2, 3], "x", "f", 3).tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ParameterError, match="a number or 3 numbers"):
        broadcast([1, 2], "x", "f", 3)
    # group means with a Student-t interval: two groups, t(0.975, 2) = 4.303
    frame = pd.DataFrame({"g": ["a"] * 3 + ["b"], "v": [1.0, 2.0, 3.0, 5.0]})
    out = mean_ci(frame, "g", "v")
    assert out["mean"].tolist() == [2.0, 5.0] and out["n"].tolist() == [3, 1]
    assert out["half_width"].iloc[0] == pytest.approx(4.302653 * 1.0 / 3**0.5, rel=1e-6)
    assert np.isnan(out["half_width"].iloc[1])
