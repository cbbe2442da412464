"""P4's simulation module, where the first mutation run of ``redundancy_simulation`` found
no test: the fill bound of a waiting room (a fluid argument), the transient it declares, the
detector's memory estimate, the intervals' ranges, the running mean and the precision loop's
defaults and fallback. Oracles: the fluid model of a filling queue, the memory of float64
series, the ranges of a time and a probability, and P4's model for the running mean."""

import math
import re

import numpy as np
import pytest
from scipy import stats

from workbench import ParameterError, validation
from workbench import redundancy as R
from workbench.validation import UnstableRegimeError

# E[T_job] = δ + 1/(mμ) = 0.5 + 1/(2·1) = 1 s with two replicas: loads are exact decimals
UNIT = R.SExp(delta=0.5, mu=1.0)


def fluid_fill(lam, groups, job_time, room):
    """Arrivals until a queue started empty fills ``room`` places: it grows by
    λ − c/E[T_job] jobs per second while λ jobs arrive per second."""
    growth = lam - groups / job_time
    return 0.0 if room == 0 or growth <= 0 else lam * room / growth


@pytest.mark.parametrize(
    ("N", "m", "lam", "room"),
    [
        (24, 2, 18.0, 100),
        (24, 2, 18.0, 1),
        (10, 3, 6.0, 100),
        (10, 3, 6.0, 1),  # 2.5 arrivals: not a whole number
        (24, 2, 30.0, 3),  # ρ = 2.5 > 2: 5 arrivals
        (24, 2, 12.0, 100),
        (24, 2, 30.0, 0),
    ],
)
def test_the_room_fills_after_the_fluid_models_arrivals(N, m, lam, room):
    """w ρ/(ρ−1) arrivals with ρ = λ E[T_job] / c and c = N // m groups (10 workers in
    groups of 3: 3 groups); 0 at ρ = 1 exactly and with no room."""
    job_time = UNIT.delta + 1.0 / (m * UNIT.mu)  # the least of m shifted exponentials
    want = fluid_fill(lam, N // m, job_time, room)
    got = R.room_fill_jobs(N=N, m=m, lam=lam, service=UNIT, waiting_room=room)
    assert got == pytest.approx(want, rel=1e-12, abs=0.0)
    if (N, m, lam) == (24, 2, 12.0):
        assert got == 0.0  # ρ = 12 · 1 / 12 = 1: nothing to fill


def _numbers(text):
    return re.findall(r"\d[\d,]*(?:\.\d+)?", text)


def test_a_run_measured_inside_the_fill_is_a_transient_and_one_after_it_is_not():
    """3 groups at ρ = 5/3 fill 100 places after 250 arrivals: 240 measured jobs are a
    transient (refused, or the result's verdict under "transient", with the model's numbers
    in its note); 250 measured jobs are not."""
    run = {"N": 10, "m": 3, "lam": 6.0, "service": UNIT, "waiting_room": 100, "jobs": 1000}
    with pytest.raises(UnstableRegimeError):
        R.simulate(**run, warmup=0.76, replications=2)
    r = R.simulate(**run, warmup=0.76, replications=2, overload="transient")
    assert not r.stationary and r.stationarity.method.startswith("fill bound; ")
    assert _numbers(r.stationarity.note) == ["3", "1.67", "1", "100", "250", "240"]
    after = R.simulate(**run, warmup=0.75, replications=2, overload="transient")
    assert not after.stationarity.method.startswith("fill bound")


def test_the_detectors_series_take_eight_bytes_per_kept_job(monkeypatch):
    """The budget check counts min(jobs, 2**16) float64 values per replication: a budget of
    exactly that many bytes runs, one byte less is refused naming ``replications``."""
    for jobs, replications in ((1000, 3), (70_000, 2)):
        need = replications * min(jobs, 2**16) * 8
        monkeypatch.setattr(validation, "MEMORY_BUDGET", need)
        R.simulate(jobs=jobs, replications=replications, overload="transient")
        monkeypatch.setattr(validation, "MEMORY_BUDGET", need - 1)
        with pytest.raises(ParameterError, match="'replications' parameter of simulate"):
            R.simulate(jobs=jobs, replications=replications, overload="transient")


def test_intervals_stay_in_each_quantitys_range():
    """Two replications of rare blocking and rare waits (t = 12.7): the raw intervals go
    below 0; a probability and a time are clipped at 0, and each estimate stays inside."""
    fast = R.SExp(delta=0.1, mu=10.0)  # E[T_job] = 0.15 s: times well below 1 s
    for room in (0, 2):
        r = R.simulate(
            N=24,
            m=2,
            lam=40.0,
            service=fast,
            t_cloud=0.5,
            waiting_room=room,
            jobs=2000,
            replications=2,
            overload="transient",
        )
        s = r.summary.set_index("quantity")
        assert (s["ci_low"] <= s["estimate"]).all() and (s["estimate"] <= s["ci_high"]).all()
        assert (s["ci_low"] >= 0.0).all() and s.loc["blocking", "ci_high"] <= 1.0
        clipped = "blocking" if room == 0 else "mean_wait"
        assert s.loc[clipped, "estimate"] - s.loc[clipped, "half_width"] < 0.0
        assert s.loc[clipped, "ci_low"] == 0.0


def test_the_running_mean_settles_on_the_models_system_time():
    """Log-spaced job counts from the first job to the last; the running mean over 200,000
    jobs is P4's E[T_sys] (eqs. 1 and 4) within 2 %."""
    t = R.running_mean_trace()
    jobs = t["jobs"].to_numpy()
    assert jobs[0] == 1 and jobs[-1] == R.P4Params().trace_jobs
    assert (jobs[1:] > jobs[:-1]).all() and len(jobs) <= R.P4Params().points
    assert t["running_mean"].iloc[-1] == pytest.approx(R.system_time(), rel=0.02)
    assert t["running_mean"].iloc[0] > 0.0


def test_the_precision_loop_starts_with_ten_replications_quietly(capsys):
    """The first step is ``initial`` = 10 replications; no progress bar unless asked; an
    absolute target is recorded, a relative one is not."""
    r = R.simulate_to_precision(jobs=2000, rel_half_width=0.5)
    assert len(r.frame) == 10 and r.info["reached"]
    assert "target_half_width" not in r.info
    assert capsys.readouterr().out == ""
    a = R.simulate_to_precision(jobs=2000, half_width=5.0)
    assert a.info["target_half_width"] == 5.0


def test_a_transient_precision_run_returns_its_first_batch_not_converged():
    """A run inside the fill bound never reaches a steady-state precision: with
    ``overload="transient"`` the first batch comes back as a transient."""
    run = {"N": 10, "m": 3, "lam": 6.0, "service": UNIT, "waiting_room": 100, "jobs": 1000}
    with pytest.raises(UnstableRegimeError):
        R.simulate_to_precision(**run, warmup=0.76)
    with pytest.raises(UnstableRegimeError):  # "raise" read at run time: equal, not the same
        R.simulate_to_precision(**run, warmup=0.76, overload="".join(["ra", "ise"]))
    r = R.simulate_to_precision(**run, warmup=0.76, overload="transient", initial=4)
    assert not r.stationary and not r.converged and r.info["reached"] is False
    assert len(r.frame) == 4 and math.isfinite(r.summary["estimate"].iloc[0])


def test_the_transients_note_counts_the_jobs_measured_after_the_warm_up():
    """200 jobs with 60 dropped: 140 measured, fewer than the 250 arrivals the room of 100
    takes to fill at ρ = 5/3; the note (the fill bound's, before the detector's) says 140."""
    run = {"N": 10, "m": 3, "lam": 6.0, "service": UNIT, "waiting_room": 100, "jobs": 200}
    r = R.simulate(**run, warmup=0.3, replications=2, overload="transient")
    assert not r.stationary and r.info["warmup"] == 60
    assert _numbers(r.stationarity.note)[:6] == ["3", "1.67", "1", "100", "250", "140"]


def test_a_time_is_clipped_at_zero_and_a_probability_at_one():
    """Two replications of 10 jobs on 2 servers at λ = 6: their means differ enough that
    the Student-t interval (t = 12.7 with one degree of freedom) of the system time reaches
    below 0 and that of the blocking above 1; the result's interval stops at each range's
    end."""
    r = R.simulate(N=2, m=1, lam=6.0, service=UNIT, t_cloud=2.0, jobs=10, replications=2, seed=4)
    s = r.summary.set_index("quantity")
    t = stats.t.ppf(0.5 + r.confidence / 2, 1)
    for q, end in (("system_time", "low"), ("blocking", "high")):
        x = r.frame[q].to_numpy()
        half = t * x.std(ddof=1) / math.sqrt(2)
        raw = x.mean() - half if end == "low" else x.mean() + half
        assert (raw < 0.0) if end == "low" else (raw > 1.0)  # the raw interval leaves
    assert s.loc["system_time", "ci_low"] == 0.0
    assert s.loc["blocking", "ci_high"] == 1.0


def test_a_loss_system_reports_no_wait_even_where_every_measured_job_was_blocked():
    """M/G/1/1 at λ = 20 with 9 of 10 jobs dropped as warm-up: the one measured job is
    often blocked (no job served at the edge in that replication). In a loss system no
    job ever waits, so the mean wait is 0 in every replication and in the estimate."""
    r = R.simulate(
        N=1, m=1, lam=20.0, service=UNIT, t_cloud=2.0, jobs=10, warmup=0.9, replications=6
    )
    assert (r.frame["jobs_measured"] == 1).all()
    assert (r.frame["blocking"] == 1.0).sum() >= 3  # no job served in these
    assert (r.frame["mean_wait"] == 0.0).all()
    s = r.summary.set_index("quantity")
    assert s.loc["mean_wait", ["estimate", "ci_low", "ci_high"]].tolist() == [0.0, 0.0, 0.0]


def test_the_precision_loop_draws_no_progress_bar_by_default(capsys):
    """A progress bar (tqdm) writes to stderr: by default neither stream gets anything."""
    R.simulate_to_precision(jobs=2000, rel_half_width=0.5)
    assert capsys.readouterr() == ("", "")
    R.simulate_to_precision(jobs=2000, rel_half_width=0.5, progress=True)
    assert capsys.readouterr().err != ""  # what the default leaves out


def test_the_running_mean_starts_at_the_first_jobs_own_time():
    """The first job finds the system empty, so its system time is its job time: the least
    of m = 2 shifted exponentials, 0.5 + Exp(rate 2). Over 200 seeds the first point of the
    trace has that law (Kolmogorov-Smirnov), and is never below the shift."""
    first = np.array(
        [
            R.running_mean_trace(
                N=4, m=2, lam=1.0, service=UNIT, trace_jobs=100, seed=seed, points=2
            )["running_mean"].iloc[0]
            for seed in range(200)
        ]
    )
    assert first.min() >= 0.5
    assert stats.kstest(first - 0.5, stats.expon(scale=0.5).cdf).pvalue > 1e-3
