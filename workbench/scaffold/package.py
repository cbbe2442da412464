"""Templates of a new paper package: a toy M/M/1 queue (``__PKG__`` is its import name,
``__PID__`` its paper id); :mod:`workbench.scaffold` fills them in."""

INIT = '''\
"""__TITLE__

A workbench paper package: the model in words goes here.

The scaffold's toy: an M/M/1 queue, Poisson arrivals at rate λ, exponential service at
rate μ, one server, first come first served. Its mean sojourn time is 1/(μ − λ) for λ < μ;
the simulation (Lindley's recursion, compiled) is checked against it.
"""

from __future__ import annotations

from __PKG__.model import PaperParams, mean_sojourn, utilisation
from __PKG__.params import PARAMS
from __PKG__.simulation import simulate, simulate_to_precision, warm_up

__all__ = [
    "PARAMS",
    "PaperParams",
    "mean_sojourn",
    "utilisation",
    "simulate",
    "simulate_to_precision",
    "warm_up",
]
'''

PARAMS = '''\
"""The parameters of the model, declared once: validation, sliders, fuzzing and the atlas
read this table. The shared rows (replications, warm-up, confidence, seed) come from
workbench.params; simulate_to_precision's keywords (rel_half_width, half_width,
max_replications, initial, progress) are the shared precision loop's, given and checked by
workbench.precision.precision_keywords against the shared rows: no row here."""

from __future__ import annotations

from workbench.params import CONFIDENCE, REPLICATIONS, SEED, WARMUP, Param, Params

__all__ = ["PARAMS"]

_RATE = {"unit": "1/s", "low": 0.0, "low_open": True, "high": 1e3, "step": 0.05}

PARAMS = Params(
    Param(
        "lam",
        "λ",
        "arrival rate",
        **_RATE,
        default=0.8,
        slider=(0.05, 2.0),
        source="choice",
        help="Poisson arrivals per second (the scaffold's choice).",
        plausible=(0.5, 0.9),
        why="A toy range: busy but stable at μ = 1.",
    ),
    Param(
        "mu",
        "μ",
        "service rate",
        **_RATE,
        default=1.0,
        slider=(0.1, 2.0),
        source="choice",
        help="Exponential service, jobs per second.",
    ),
    Param(
        "jobs",
        "n",
        "jobs per replication",
        kind="int",
        low=1_000,
        high=10_000_000,
        default=100_000,
        slider=(1_000, 200_000),
        step=1_000,
        source="choice",
        help="Run length of one replication, in jobs.",
    ),
    Param(
        "overload",
        "overload",
        "what a non-stationary run does",
        kind="choice",
        choices=("raise", "transient"),
        default="raise",
        source="choice",
        help="raise: refuse an unstable regime; transient: report finite-horizon numbers.",
    ),
    REPLICATIONS,
    WARMUP,
    CONFIDENCE,
    SEED,
)
'''

MODEL = '''\
"""The analytic model: the M/M/1 queue's mean sojourn time."""

from __future__ import annotations

from workbench.params import takes
from workbench.validation import UnstableRegimeError

from __PKG__.params import PARAMS

__all__ = ["PaperParams", "mean_sojourn", "utilisation"]

#: the paper's parameters as one object: a field per row of PARAMS, validated once when
#: built; the public functions take it or its keywords (workbench.params.takes)
PaperParams = PARAMS.model(
    "PaperParams", doc="The paper's parameters, one validated object: a field per row of PARAMS."
)


@takes(PaperParams, "lam", "mu", positional=True)
def utilisation(p) -> float:
    """ρ = λ/μ, the server's busy fraction (λ < μ for a steady state)."""
    return p.lam / p.mu


@takes(PaperParams, "lam", "mu", positional=True)
def mean_sojourn(p) -> float:
    """E[T] = 1/(μ − λ), the mean time a job spends in the M/M/1 system (waiting + service).

    Raises :class:`workbench.validation.UnstableRegimeError` when λ ≥ μ.
    """
    if p.lam >= p.mu:
        raise UnstableRegimeError(
            f"mean_sojourn: λ = {p.lam:g} ≥ μ = {p.mu:g}, the queue grows without bound"
        )
    return 1.0 / (p.mu - p.lam)
'''

KERNELS = '''\
"""The compiled kernel: Lindley's recursion for the FCFS single-server queue."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["lindley_kernel"]


@njit(cache=True)
def lindley_kernel(interarrival, service):
    """Sojourn times of n jobs: W₀ = 0, W_{k+1} = max(0, W_k + S_k − A_{k+1}), T_k = W_k + S_k.

    ``interarrival[k]`` is the time between job k − 1 and job k; ``service[k]`` job k's work.
    """
    n = interarrival.shape[0]
    sojourn = np.empty(n)
    wait = 0.0
    for k in range(n):
        if k > 0:
            wait = max(0.0, wait + service[k - 1] - interarrival[k])
        sojourn[k] = wait + service[k]
    return sojourn
'''

SIMULATION = '''\
"""simulate(...) and simulate_to_precision(...): replications through the shared output
analysis (workbench.output_analysis: seeds, stationarity detector, overload policy) and the
shared precision loop (workbench.precision: one stopping rule, its keywords checked once)."""

from __future__ import annotations

import numpy as np

from workbench.output_analysis import Replication, check_overload, finish, replicate
from workbench.params import takes
from workbench.precision import precision_keywords, to_precision
from workbench.results import SimulationResult

from __PKG__.kernels import lindley_kernel
from __PKG__.model import PaperParams

__all__ = ["simulate", "simulate_to_precision", "warm_up"]


def _one(lam: float, mu: float, jobs: int, warmup: float):
    """The engine's ``one(seed_sequence, index)``: one replication from its own stream."""
    cut = int(warmup * jobs)

    def one(seed_sequence, index) -> Replication:
        rng = np.random.default_rng(seed_sequence)
        times = lindley_kernel(rng.exponential(1.0 / lam, jobs), rng.exponential(1.0 / mu, jobs))
        return Replication({"sojourn": float(times[cut:].mean())}, times, cut)

    return one


def _setup(func: str, p) -> tuple:
    """Refuse λ ≥ μ before running (overload="raise"); the replication and finish()'s
    description of the result. ``p`` was validated at the door."""
    rho = p.lam / p.mu
    check_overload(func, p.overload, rho=rho, what="the M/M/1 server")
    finishing = {
        "metric": "sojourn",
        "quantities": ["sojourn"],
        "confidence": p.confidence,
        "run_length": p.jobs,
        "run_unit": "jobs",
        "overload": p.overload,
        "rho": rho,
        "bounds": {"sojourn": (0.0, float("inf"))},
        "unit": "s",
    }
    return _one(p.lam, p.mu, p.jobs, p.warmup), finishing


@takes(
    PaperParams, "lam", "mu", "jobs", "warmup", "replications", "seed", "confidence", "overload"
)
def simulate(p) -> SimulationResult:
    """Simulate the M/M/1 queue; the mean sojourn time with its confidence interval.

    Takes a PaperParams or its keywords (keyword-only, defaults from PARAMS). Same seed,
    same numbers. ``overload="raise"`` refuses λ ≥ μ (UnstableRegimeError);
    ``"transient"`` returns the finite-horizon numbers with a note.
    """
    one, finishing = _setup("simulate", p)
    reps = replicate(one, replications=p.replications, seed=p.seed)
    return finish(reps, func="simulate", **finishing)


@takes(PaperParams, "lam", "mu", "jobs", "warmup", "seed", "confidence", "overload")
@precision_keywords(unit="s", overload="params")
def simulate_to_precision(p, *, target) -> SimulationResult:
    """Add replications of :func:`simulate` until the interval of the mean sojourn time is
    narrow enough: the shared loop :func:`workbench.precision.to_precision`, its keywords
    (the target, the budget, the progress bar) given by
    :func:`workbench.precision.precision_keywords`. A precision needs a steady state:
    ``overload`` must be "raise", and a run the detector finds non-stationary raises
    UnstableRegimeError. Replication r is that of ``simulate(..., seed=seed)``: same seed,
    same numbers.
    """
    f = "simulate_to_precision"
    one, finishing = _setup(f, p)
    return to_precision(one, func=f, target=target, seed=p.seed, **finishing)


def warm_up() -> None:
    """The smallest valid call of every kernel, so numba compiles them into its cache before
    a notebook needs them (``python -m workbench compile`` runs it, workbench.warm)."""
    simulate(jobs=1_000, replications=2)
'''

FIGURES = '''\
"""FIGURES: name -> FigureSpec(<name>_frame(quick), plot_<name>(frame)); the CLI writes the
frame as CSV and the figure as PNG, the notebook shows the same figure."""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.plots import FigureSpec, ci_errorbar, figure

from __PKG__.model import mean_sojourn
from __PKG__.params import PARAMS
from __PKG__.simulation import simulate

__all__ = ["FIGURES", "sojourn_frame", "plot_sojourn"]


def sojourn_frame(quick: bool = True, seed: int = 0) -> pd.DataFrame:
    """Mean sojourn time against λ (μ = the table's): theory and simulation with intervals."""
    mu = PARAMS["mu"].default
    rows = []
    for lam in np.linspace(0.1, 0.8, 4 if quick else 8) * mu:
        sim = simulate(lam=lam, mu=mu, jobs=20_000 if quick else 200_000, seed=seed)
        rows.append(
            {
                "lam": lam,
                "theory": mean_sojourn(lam, mu),
                "simulated": sim.mean,
                "ci_low": sim.ci_low,
                "ci_high": sim.ci_high,
            }
        )
    return pd.DataFrame(rows)


def plot_sojourn(frame: pd.DataFrame, ax=None):
    """E[T] = 1/(μ − λ) (line) and the simulated means (markers with intervals)."""
    fig, ax = figure() if ax is None else (ax.figure, ax)
    ax.plot(frame["lam"], frame["theory"], label="1/(μ − λ)")
    ci_errorbar(
        ax, frame["lam"], frame["simulated"], frame["ci_low"], frame["ci_high"], label="simulated"
    )
    ax.set(xlabel="arrival rate λ (1/s)", ylabel="mean sojourn time E[T] (s)")
    ax.legend()
    return fig


FIGURES = {
    "sojourn": FigureSpec(sojourn_frame, plot_sojourn, "Mean sojourn time against λ"),
}
'''

VIEWS = '''\
"""The notebook's slider views (the only module that imports ipywidgets)."""

from __future__ import annotations

import numpy as np

from workbench.plots import figure
from workbench.widgets import interactive_figure

from __PKG__.model import mean_sojourn
from __PKG__.params import PARAMS

__all__ = ["VIEWS", "sojourn_view"]


def _plot(lam: float, mu: float):
    fig, ax = figure(fast=True)
    lams = np.linspace(0.01, 0.99, 60) * mu
    ax.plot(lams, [mean_sojourn(x, mu) for x in lams], label="1/(μ − λ)")
    if lam < mu:
        ax.plot([lam], [mean_sojourn(lam, mu)], "o", label=f"λ = {lam:g}")
    ax.set(xlabel="arrival rate λ (1/s)", ylabel="E[T] (s)", yscale="log")
    ax.legend()
    return fig


def sojourn_view():
    """E[T] against λ, the chosen λ marked (analytic: instant)."""
    return interactive_figure(
        _plot, title="M/M/1 mean sojourn time", lam=PARAMS["lam"], mu=PARAMS["mu"]
    )


VIEWS = {"sojourn": sojourn_view}
'''

CLAIMS = '''\
"""CLAIMS: claim id (as in the claims CSV) -> measure(quick) -> float; ATLAS for the atlas."""

from __future__ import annotations

from workbench.claims import AtlasSpec, Measurement

from __PKG__.model import mean_sojourn
from __PKG__.params import PARAMS
from __PKG__.simulation import simulate

__all__ = ["CLAIMS", "ATLAS", "atlas_point"]


def _sojourn(lam: float, mu: float, quick: bool, seed: int = 0) -> Measurement:
    """Simulated mean sojourn time over its theory, 1/(μ − λ): 1 when they agree."""
    sim = simulate(lam=lam, mu=mu, jobs=20_000 if quick else 200_000, seed=seed)
    return Measurement(sim.mean / mean_sojourn(lam, mu), sim.stationary)


def sojourn_matches_theory(quick: bool = True) -> Measurement:
    return _sojourn(PARAMS["lam"].default, PARAMS["mu"].default, quick)


def atlas_point(*, quick: bool, seed: int, lam: float) -> dict:
    """The same measure anywhere in the plausible space (λ plausible, μ the table's)."""
    return {"sojourn_matches_theory": _sojourn(lam, PARAMS["mu"].default, quick, seed)}


CLAIMS = {"sojourn_matches_theory": sojourn_matches_theory}
ATLAS = AtlasSpec(evaluate=atlas_point, claims=("sojourn_matches_theory",), quick_points=4)
'''

EXERCISES = '''\
"""EXERCISES: the notebook's classroom questions; each answer is computed from the model."""

from __future__ import annotations

from workbench.exercises import Question

from __PKG__.model import mean_sojourn

__all__ = ["EXERCISES"]


def _load_ratio() -> float:
    return mean_sojourn(0.9, 1.0) / mean_sojourn(0.45, 1.0)


def _jobs_in_system() -> float:
    """Little's law: L = λ E[T]."""
    return 0.6 * mean_sojourn(0.6, 1.0)


def _wait_before_service() -> float:
    """The time in queue: the sojourn time less the mean service time 1/μ."""
    return mean_sojourn(0.7, 1.0) - 1.0 / 1.0


EXERCISES = (
    Question(
        key="double_load",
        text="With μ = 1 /s, how many times longer is the mean sojourn time at λ = 0.9 /s "
        "than at λ = 0.45 /s?",
        answer=_load_ratio,
        tolerance=0.01,
        hint="E[T] = 1/(μ − λ).",
        solution=lambda v: f"(1 − 0.45)/(1 − 0.9) = {v:.2f}: the queue's time explodes near ρ = 1.",
    ),
    Question(
        key="littles_law",
        text="At λ = 0.6 /s and μ = 1 /s, how many jobs are in the system on average?",
        answer=_jobs_in_system,
        tolerance=0.01,
        hint="Little's law: L = λ E[T].",
        solution=lambda v: f"L = λ/(μ − λ) = 0.6/0.4 = {v:.2f} jobs.",
    ),
    Question(
        key="queueing_time",
        text="At λ = 0.7 /s and μ = 1 /s, how long does a job wait before its service starts, "
        "on average, in seconds?",
        answer=_wait_before_service,
        tolerance=0.01,
        hint="The sojourn time is the wait plus the service time 1/μ.",
        solution=lambda v: f"W = 1/(μ − λ) − 1/μ = {v:.2f} s.",
    ),
)
'''

EXAMPLES = '''\
"""Valid values for the arguments of the public callables that no table row gives
(``"<param>"`` or ``"<function>.<param>"`` -> a builder); the API fuzz reads them. Every
argument of this toy has a table row, so there is none yet."""

from __future__ import annotations

__all__ = ["EXAMPLES"]

EXAMPLES: dict = {}
'''

PARTS = {
    "__init__": INIT,
    "params": PARAMS,
    "model": MODEL,
    "kernels": KERNELS,
    "simulation": SIMULATION,
    "figures": FIGURES,
    "views": VIEWS,
    "claims": CLAIMS,
    "exercises": EXERCISES,
    "examples": EXAMPLES,
}
