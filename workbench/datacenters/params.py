"""The parameters of the two-center model (and its ring), declared once.

Every public function of :mod:`workbench.datacenters` validates its arguments against this
table (``PARAMS.check("<function>", lam=lam, ...)``) once; private helpers never re-check.
The notebook's controls are built from the same rows (per-center rows by ``_center``).

Rates are bounded (``[1e-6, 1e6]``) so that every ratio the model forms (loads
λ/μ, λ/(cμ), their logarithms and powers) stays far from overflow and underflow: the
model is scale-free in time, so the bounds only exclude numbers no data center has.
"""

from __future__ import annotations

import numbers

import numpy as np

from workbench.params import CONFIDENCE, REPLICATIONS, SEED, WARMUP, Param, Params
from workbench.validation import ParameterError

__all__ = [
    "PARAMS",
    "MAX_SERVERS",
    "MAX_STATES",
    "EXAMPLE",
]

MAX_SERVERS = 5000  # per center
MAX_STATES = 2_500_000  # states actually solved (after dropping negligible tails)
RATE_LOW, RATE_HIGH = 1e-6, 1e6
# the worked example of the notebook and the claims: loads per unit of the scale N
EXAMPLE = {"lam": (1.5, 0.8), "c": (1.0, 1.0), "mu": (1.0, 1.0), "p": (0.6, 0.3)}

PARAMS = Params(
    Param(
        "lam",
        "λ",
        "arrival rate",
        "1/s",
        low=RATE_LOW,
        high=RATE_HIGH,
        default=(30.0, 16.0),
        slider=(0.5, 60.0),
        step=0.5,
        pair=True,
        help="Poisson arrival rate of each center's own requests (absolute; the default is "
        "the worked example λ/N = (1.5, 0.8) at N = 20).",
        source="choice",
    ),
    Param(
        "load",
        "λ/N",
        "arrival rate per unit N",
        "1/s",
        low=RATE_LOW,
        high=RATE_HIGH,
        default=EXAMPLE["lam"],
        slider=(0.05, 3.0),
        step=0.05,
        pair=True,
        help="Arrival rate of each center per unit of the scale N (the centers receive "
        "λᵢ = loadᵢ · N): the argument of the scaling limit.",
        source="choice",
    ),
    Param(
        "servers",
        "C",
        "servers",
        kind="int",
        low=1,
        high=MAX_SERVERS,
        default=(20, 20),
        slider=(1, 200),
        step=1,
        pair=True,
        help="Number of servers of each center (C_i = c_i N in the scaling).",
        source="choice",
    ),
    Param(
        "c",
        "c",
        "servers per unit N",
        low=1e-3,
        high=1e3,
        default=EXAMPLE["c"],
        slider=(0.25, 2.0),
        step=0.05,
        pair=True,
        help="Capacity of each center per unit of the scale N: C_i = c_i N.",
        source="choice",
    ),
    Param(
        "mu",
        "μ",
        "service rate",
        "1/s",
        low=RATE_LOW,
        high=RATE_HIGH,
        default=EXAMPLE["mu"],
        slider=(0.25, 3.0),
        step=0.05,
        pair=True,
        help="Exponential service rate of one server of each center.",
        source="choice",
    ),
    Param(
        "p",
        "p",
        "forwarding probability",
        low=0.0,
        high=1.0,
        default=EXAMPLE["p"],
        slider=(0.0, 1.0),
        step=0.05,
        pair=True,
        help="A request finding its center full is sent to the other center with this "
        "probability (and lost if that one is full too).",
        source="choice",
    ),
    Param(
        "N",
        "N",
        "scale",
        kind="int",
        low=1,
        high=MAX_SERVERS,
        default=200,
        slider=(2, 200),
        step=1,
        help="Scale of the system: arrivals λ_i N and C_i = c_i N servers.",
        source="choice",
    ),
    Param(
        "events",
        "n_ev",
        "events per replication",
        "events",
        kind="int",
        low=1000,
        high=50_000_000,
        default=200_000,
        slider=(10_000, 2_000_000),
        step=10_000,
        help="Arrivals and departures simulated per replication (run length).",
        source="choice",
    ),
    WARMUP,
    REPLICATIONS.with_(high=1000),
    CONFIDENCE.with_(high=0.999, high_open=False),
    SEED,
    # the ring of J centers
    Param(
        "ring_load",
        "λ_j/N",
        "arrival rate per unit N of center j",
        "1/s",
        low=RATE_LOW,
        high=RATE_HIGH,
        default=(1.6, 0.6, 0.6, 0.6, 0.6, 0.6),
        length=(3, 64),
        slider=(0.2, 2.0),
        step=0.05,
        help="One rate per center of the ring (3 to 64 centers).",
        source="choice",
    ),
    Param(
        "ring_p",
        "p_j",
        "forwarding probability to each neighbour",
        low=0.0,
        high=0.5,
        default=0.25,
        slider=(0.0, 0.5),
        step=0.05,
        help="A request finding center j full goes to j−1 and to j+1 with this probability "
        "each (so at most 1/2).",
        source="choice",
    ),
    # study and solver settings
    Param(
        "sizes",
        "N",
        "scales compared",
        kind="int",
        low=1,
        high=MAX_SERVERS,
        default=(10, 20, 50, 100, 200, 500, 1000),
        length=(1, 100),
        help="The values of N at which the exact chain is solved.",
        source="choice",
    ),
    Param(
        "grid",
        "n_p",
        "grid points per forwarding probability",
        kind="int",
        low=2,
        high=101,
        default=11,
        slider=(3, 21),
        step=1,
        help="Number of values of each p_i in [0, 1].",
        source="choice",
    ),
    Param(
        "points",
        "n",
        "points on the varied axis",
        kind="int",
        low=2,
        high=201,
        default=21,
        help="Number of values of the varied probability.",
        source="choice",
    ),
    Param(
        "p_other",
        "p",
        "forwarding probability held fixed",
        low=0.0,
        high=1.0,
        default=0.3,
        slider=(0.0, 1.0),
        step=0.05,
        help="The forwarding probability of the class that is not varied.",
        source="choice",
    ),
    Param(
        "vary",
        "p_i",
        "varied probability",
        kind="choice",
        choices=("p1", "p2"),
        default="p1",
        help="Which forwarding probability the study varies.",
        source="choice",
    ),
    Param(
        "limit",
        "limit",
        "draw the limit N → ∞",
        kind="bool",
        default=True,
        help="Also compute the scaling limit at each point.",
        source="choice",
    ),
    Param(
        "lam_max",
        "λ_max",
        "largest arrival rate on the map",
        "1/s",
        low=0.01,
        high=1e3,
        default=3.0,
        help="Upper end of both axes of the regime map (per unit N).",
        source="choice",
    ),
    Param(
        "map_points",
        "n",
        "grid points per axis of the map",
        kind="int",
        low=5,
        high=401,
        default=121,
        help="Resolution of the regime map.",
        source="choice",
    ),
    Param(
        "tol",
        "tol",
        "relative residual target",
        low=1e-15,
        high=1e-3,
        default=1e-12,
        help="Stop when ‖πQ‖₁ ≤ tol · Σ π(s) q(s).",
        source="choice",
    ),
    Param(
        "tail",
        "ε",
        "dropped tail mass",
        low=0.0,
        high=1e-12,
        default=1e-40,
        help="States in a tail of mass below ε (by comparison with Erlang systems) are "
        "dropped; 0 keeps the whole grid. At most 1e-12: the dropped mass counts in the "
        "residual the solution is certified by (1e-8 already fails it at the defaults).",
        source="choice",
    ),
    Param("shifts", "s", "ADI shifts per cycle", kind="int", low=1, high=64, default=8),
    Param("restart", "m", "GMRES restart length", kind="int", low=2, high=200, default=20),
    Param("max_restarts", "k", "GMRES restarts", kind="int", low=1, high=10_000, default=60),
    Param(
        "truncation_target",
        "ε_trunc",
        "truncation error target",
        low=1e-14,
        high=1e-3,
        default=1e-10,
        help="Target for the truncation error of the idle-server walk.",
        source="choice",
    ),
    Param(
        "max_phases", "M", "largest phase truncation", kind="int", low=16, high=4000, default=800
    ),
)


_SUBSCRIPTS = {1: "₁", 2: "₂"}


def _center(name: str, i: int, **changes) -> Param:
    """The row of pair parameter ``name`` for center ``i`` alone (``lam`` -> ``lam1``, λ₁).

    Used for the notebook's controls (one slider per center).
    """
    base = PARAMS[name]
    fields = {
        "name": f"{name}{i}",
        "symbol": f"{base.symbol}{_SUBSCRIPTS[i]}",
        "pair": False,
        "default": base.default[i - 1] if base.default is not None else None,
    }
    fields |= changes
    fields["meaning"] = f"{changes.get('meaning', base.meaning)} of center {i}"
    return base.with_(**fields)


def _check_ring_vector(value, param: Param, n: int | None, func: str, name: str | None = None):
    """A scalar (repeated) or a sequence of ``n`` values, each checked by ``param``.

    ``n=None``: ``value`` must be a sequence (its length is the number of centers).
    Returns a list of checked values.
    """
    param = param.with_(length=None)  # this function checks the sequence, param each value
    if name is not None:
        param = param.with_(name=name)
    name = param.name
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, (numbers.Number, np.generic)) and n is not None:
        return [param.check(value, func)] * n
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        what = "a scalar or " if n is not None else ""
        raise ParameterError(
            f"The '{name}' parameter of {func} must be {what}a sequence of "
            f"{n if n is not None else '3 to 64'} values. Got {value!r} instead."
        )
    items = list(value)
    if n is not None and len(items) != n:
        raise ParameterError(
            f"The '{name}' parameter of {func} must be a scalar or a sequence of {n} "
            f"values. Got {value!r} instead."
        )
    return [param.check(v, func) for v in items]


def _ring_args(lam, servers, mu, p, func, servers_name="servers", rate_name="lam"):
    """Checked ring arguments as arrays: a rate per center (``rate_name``: ``lam`` absolute,
    ``load`` per unit N); servers (or c), mu, p per center or one value for all."""
    lam = _check_ring_vector(lam, PARAMS["ring_load"], None, func, name=rate_name)
    n = len(lam)
    if n < 3 or n > 64:
        raise ParameterError(
            f"The '{rate_name}' parameter of {func} must be a sequence of 3 to 64 rates (one "
            f"per center of the ring). Got {n} values instead."
        )
    caps = _check_ring_vector(servers, PARAMS[servers_name].with_(pair=False), n, func)
    mu = _check_ring_vector(mu, PARAMS["mu"].with_(pair=False), n, func)
    p = _check_ring_vector(p, PARAMS["ring_p"], n, func, name="p")
    caps = np.array(caps, dtype=np.int64 if servers_name == "servers" else float)
    return np.array(lam), caps, np.array(mu), np.array(p)
