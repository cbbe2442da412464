"""The parameters of the two-center model (and its ring), declared once.

:data:`P3Params` is the paper's parameter object, built from this table: the public
functions of the model, the simulation and the studies take it, or its keywords
(:func:`workbench.params.takes`), and validate it once at their door; the code they call
trusts it. The notebook's controls are built from the same rows; the ring's centers are
checked by the same rows, into a :class:`Ring`.

Rates are bounded (``[1e-6, 1e6]``) so that every ratio the model forms (loads
λ/μ, λ/(cμ), their logarithms and powers) stays far from overflow and underflow: the
model is scale-free in time, so the bounds only exclude numbers no data center has.

The claim atlas (``plausible`` and ``why`` on a row, see :mod:`workbench.datacenters.claims`)
covers the values the claims rest on that neither the paper nor the claims' own statements
fix: the solver's settings (``tol``, ``tail``, ``shifts``, ``restart``, ``max_restarts``,
``truncation_target``, ``max_phases``), the simulation's ``warmup``, and, for the paper's
claim in words, its lost examples (``example_*``) and the reading of "the blocking
probability" (``blocking_reading``). Every other row is a [choice] the claims do not depend
on, or that defines them, and stays fixed (``plausible=None``): the worked example (``lam``,
``load``, ``c``, ``mu``, ``p``: every numeric claim is stated at it), the scales N and the
simulation lengths (stated in each claim), the ring, and the studies' grids.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.params import CONFIDENCE, REPLICATIONS, SEED, WARMUP, Param, Params
from workbench.validation import broadcast, check_array

__all__ = [
    "PARAMS",
    "P3Params",
    "DEFAULTS",
    "CENTERS",
    "LIMIT",
    "MAX_SERVERS",
    "MAX_STATES",
    "EXAMPLE",
    "Ring",
]

MAX_SERVERS = 5000  # per center
MAX_STATES = 2_500_000  # states actually solved (after dropping negligible tails)
RATE_LOW, RATE_HIGH = 1e-6, 1e6
# the worked example of the notebook and the claims: loads per unit of the scale N
EXAMPLE = {"lam": (1.5, 0.8), "c": (1.0, 1.0), "mu": (1.0, 1.0), "p": (0.6, 0.3)}

_NUMERICAL = (
    "The paper gives no numerical method for the finite chain (its results are closed forms "
    "and limits); the solver's settings are the workbench's."
)
_EXAMPLES = (
    "The paper's numerical section (its Section 5) was not recovered, so its examples' values "
    "are unknown; the workbench's worked example is a choice."
)

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
        plausible=(1e-13, 1e-9),
        why=_NUMERICAL
        + " Any target at which the residual still certifies the chain's law to well below "
        "the claims' 1e-6 is acceptable.",
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
        plausible=(1e-60, 1e-20),
        why=_NUMERICAL + " A tail far below round-off in either direction changes nothing real.",
    ),
    Param(
        "shifts",
        "s",
        "ADI shifts per cycle",
        kind="int",
        low=1,
        high=64,
        default=8,
        source="choice",
        plausible=(4, 16),
        why=_NUMERICAL + " The shifts only change how fast GMRES converges.",
    ),
    Param(
        "restart",
        "m",
        "GMRES restart length",
        kind="int",
        low=2,
        high=200,
        default=20,
        source="choice",
        plausible=(10, 40),
        why=_NUMERICAL + " The restart length only changes how fast GMRES converges.",
    ),
    Param(
        "max_restarts",
        "k",
        "GMRES restarts",
        kind="int",
        low=1,
        high=10_000,
        default=60,
        source="choice",
        plausible=(30, 120),
        why=_NUMERICAL + " Fewer restarts hand a stagnating case to sparse LU sooner.",
    ),
    Param(
        "truncation_target",
        "ε_trunc",
        "truncation error target",
        low=1e-14,
        high=1e-3,
        default=1e-10,
        help="Target for the truncation error of the idle-server walk.",
        source="choice",
        plausible=(1e-12, 1e-8),
        why="The paper's explicit π_c(0,0) (its Theorem 3, 'through elliptic integrals' in the "
        "workbench's summary) is not available, so the workbench truncates the walk; any "
        "target well below the claims' 1e-6 is acceptable.",
    ),
    Param(
        "max_phases",
        "M",
        "largest phase truncation",
        kind="int",
        low=16,
        high=4000,
        default=800,
        source="choice",
        plausible=(400, 2000),
        why=_NUMERICAL + " A cap on the walk's truncation, far above what the example needs.",
    ),
    WARMUP.with_(
        plausible=(0.02, 0.5),
        why="The paper simulates nothing; the warm-up is the workbench's. A loss network "
        "forgets its empty start within a few service times, so any fraction from 2 % to "
        "half of a run is a careful choice.",
    ),
    # the paper's claim in words, over the plausible space of its lost numerical examples
    Param(
        "example_load1",
        "λ₁/N",
        "example: arrival rate per unit N of center 1",
        "1/s",
        low=0.05,
        high=5.0,
        default=EXAMPLE["lam"][0],
        help="The paper's claim that forwarding reduces blocking, evaluated at this load.",
        source="choice",
        plausible=(0.5, 2.5),
        why=_EXAMPLES + " The range runs from half loaded to 2.5 times overloaded (c₁μ₁ = 1).",
    ),
    Param(
        "example_load2",
        "λ₂/N",
        "example: arrival rate per unit N of center 2",
        "1/s",
        low=0.05,
        high=5.0,
        default=EXAMPLE["lam"][1],
        help="As example_load1, for center 2.",
        source="choice",
        plausible=(0.3, 1.5),
        why=_EXAMPLES + " Center 2 from lightly loaded to overloaded (c₂μ₂ = 1).",
    ),
    Param(
        "example_p1",
        "p₁",
        "example: forwarding probability of class 1",
        low=0.0,
        high=1.0,
        default=EXAMPLE["p"][0],
        source="choice",
        plausible=(0.05, 1.0),
        why=_EXAMPLES + " 'with a given probability p₁': any forwarding at all (p₁ > 0).",
    ),
    Param(
        "example_p2",
        "p₂",
        "example: forwarding probability of class 2",
        low=0.0,
        high=1.0,
        default=EXAMPLE["p"][1],
        source="choice",
        plausible=(0.05, 1.0),
        why=_EXAMPLES + " 'with probability p₂': any forwarding at all (p₂ > 0).",
    ),
    Param(
        "example_mu2",
        "μ₂",
        "example: service rate of center 2 (μ₁ = 1)",
        "1/s",
        low=1e-3,
        high=1e3,
        default=EXAMPLE["mu"][1],
        source="choice",
        plausible=(0.25, 4.0),
        why=_EXAMPLES + " 'A request allocated at data center #i is processed at rate μ_i': "
        "the centers' speeds may differ, by up to a factor 4 either way here.",
    ),
    Param(
        "blocking_reading",
        "β",
        "which blocking forwarding reduces",
        kind="choice",
        choices=("total", "each class"),
        default="total",
        help="Reading of 'To reduce the blocking probability': the lost fraction of all "
        "requests, or the blocking of each class separately.",
        source="choice",
        plausible=("total", "each class"),
        why="The paper writes 'To reduce the blocking probability, we assume that requests "
        "arriving at a service facility with no available servers are forwarded to the other "
        "one' without saying whose: the lost fraction of all requests, or each class's β_i.",
    ),
)


#: the two centers' pairs, in the order every function of the chain takes them
CENTERS = ("lam", "servers", "mu", "p")
#: the same per unit of the scale N, in the order every function of the limit takes them
LIMIT = ("load", "c", "mu", "p")

#: rows that are no argument of a function of the model: the atlas's readings of the paper
#: (its lost examples ``example_*`` and what "the blocking probability" means) and the
#: ring's rates (the ring's functions take one rate per center, checked against this row)
_NOT_ARGUMENTS = (*(n for n in PARAMS if n.startswith("example_")), "blocking_reading", "ring_load")

P3Params = PARAMS.model(
    "P3Params",
    exclude=_NOT_ARGUMENTS,
    doc="""P3's parameters, one validated object: a row of :data:`PARAMS` per field.

    The two centers' pairs (``lam``, ``servers``, ``mu``, ``p``; ``load`` and ``c`` per unit
    N for the limit), the solver's settings, the simulation's run and the studies' grids.
    Every public function of the model, the simulation and the studies takes it, or its
    keywords (:func:`workbench.params.takes`).""",
)

#: the table's defaults as one object, the worked example (``load``, ``c``, ``mu``, ``p``:
#: :data:`EXAMPLE`); inner code derives its trusted copies from it
#: (``DEFAULTS.trusted(lam=...)``) for values computed from a validated call
DEFAULTS = P3Params()


def example_at(n: int, **changes) -> P3Params:
    """The worked example at scale ``n``, trusted: C_i = n servers, arrivals λ_i = loadᵢ · n.

    For the figures, claims and exercises, which state the example at a scale of their own
    (``n`` and ``changes`` are their constants, not a user's values).

    Parameters
    ----------
    n : int
        The scale N.
    **changes
        Other fields of the point (``p=(0.0, 0.0)``, a solver setting).

    Returns
    -------
    P3Params
        The point, derived from :data:`DEFAULTS` without validation.
    """
    lam = (EXAMPLE["lam"][0] * n, EXAMPLE["lam"][1] * n)
    return DEFAULTS.trusted(lam=lam, servers=(n, n), **changes)


def _vector(value, row: str, func: str, *, name: str, n: int | None = None, dtype=float):
    """``value`` checked against the range of table row ``row``: one value per center
    (``n`` of them, a scalar repeated) or, with ``n=None``, a sequence of the row's length."""
    param = PARAMS[row]
    bounds = {k: getattr(param, k) for k in ("low", "high", "low_open", "high_open")}
    bounds["dtype"] = dtype
    if n is None:
        return check_array(value, name, func, ndim=1, length=param.length, **bounds)
    return broadcast(value, name, func, n, **bounds)


@dataclass(frozen=True)
class Ring:
    """The centers of a ring, checked: one value per center, as arrays.

    The ring's public functions (:func:`~workbench.datacenters.ring_limit`,
    :func:`~workbench.datacenters.simulate_ring`) build it at their door with :meth:`of`;
    the code they call trusts it.

    Parameters
    ----------
    rates : numpy.ndarray
        Arrival rate of each center (3 to 64 of them): absolute [1/s], or per unit of the
        scale N.
    servers : numpy.ndarray
        Servers of each center (int), or capacity per unit N (float, ``c``).
    mu : numpy.ndarray
        Service rate of one server of each center [1/s].
    p : numpy.ndarray
        Forwarding probability to each neighbour, in [0, 1/2].
    """

    rates: np.ndarray
    servers: np.ndarray
    mu: np.ndarray
    p: np.ndarray

    @classmethod
    def of(cls, func: str, rates, servers, mu, p, *, per_unit=False, rates_name=None) -> Ring:
        """The ring's values checked against the table's rows, errors naming ``func``.

        Parameters
        ----------
        func : str
            The public function whose arguments these are.
        rates : sequence of float
            One arrival rate per center, in the range of the ``ring_load`` row.
        servers, mu, p : float or sequence of float
            One value per center, or one for all: servers in [1, 5000] (with ``per_unit``,
            capacities per unit N in the range of the ``c`` row), service rates, and
            forwarding probabilities in the range of the ``ring_p`` row.
        per_unit : bool
            The scaling limit's arguments (``load``, ``c``) instead of the finite ring's
            (``lam``, ``servers``).
        rates_name : str or None
            The name errors give the rates; None: ``load`` or ``lam``.

        Returns
        -------
        Ring
            The checked values.
        """
        rates_name = rates_name or ("load" if per_unit else "lam")
        rates = _vector(rates, "ring_load", func, name=rates_name)
        n = rates.size
        servers_name, dtype = ("c", float) if per_unit else ("servers", int)
        servers = _vector(servers, servers_name, func, name=servers_name, n=n, dtype=dtype)
        mu = _vector(mu, "mu", func, name="mu", n=n)
        p = _vector(p, "ring_p", func, name="p", n=n)
        return cls(rates, servers, mu, p)
