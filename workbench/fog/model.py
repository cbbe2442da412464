"""P1's parameter object: every argument of the model and the simulation, validated once.

:data:`P1Params` is built from the paper's table (:data:`workbench.fog.params.PARAMS`) by
:meth:`workbench.params.Params.model`: one field per row, plus ``scenario`` (a scenario
graph, compiled to arrays when the object is built; ``None`` is the workbench's default
scenario). Every public function of the model (:mod:`~workbench.fog.chain`,
:mod:`~workbench.fog.acceptance`, :mod:`~workbench.fog.network`) and of the simulation
takes it, or its keywords (:func:`workbench.params.takes`), and trusts it.

The analytic model is split by role: :mod:`workbench.fog.chain` (one fog node's (n, n')
chain, W̄, counts), :mod:`workbench.fog.acceptance` (P_j = P(W < θ)),
:mod:`workbench.fog.network` (flows, the λ_j fixed point, :func:`~workbench.fog.analyze`)
and :mod:`workbench.fog.delays` (cloud servers by Pollaczek–Khinchine, eq. 6, eq. 2).

References
----------
Yousefpour, Ishigaki, Gour, Jue, "On reducing IoT service delay via fog offloading", IEEE
Internet of Things Journal 5(1), 2018: eq. 2 (service delay), eq. 6 (L_ij(x)), Sec. IV-G
(the (n, n') chain, W̄), eq. 18 (P_j), eqs. 22–28 (flows), eqs. 29–31 (cloud, P-K).
"""

from __future__ import annotations

import functools
import math
import numbers

import networkx as nx
import numpy as np

from workbench.fog.params import PARAMS, check_count
from workbench.fog.scenario import Compiled, compile_scenario, default_scenario
from workbench.params import ParamsModel
from workbench.validation import ParameterError, broadcast

__all__ = ["P1Params", "theta_per_fog"]


@functools.cache
def _default_network() -> Compiled:
    """The workbench's default scenario (:func:`default_scenario`), compiled once."""
    return compile_scenario(default_scenario())


def _check_scenario(value, func: str):
    # a graph is validated and compiled here, once: the functions get arrays
    return None if value is None else compile_scenario(value)


def _check_theta(value, func: str):
    # a number (θ = ∞ allowed) by the row; a sequence (one θ per fog node) is checked
    # against the scenario's fog nodes (_Relations)
    try:
        scalar = isinstance(value, numbers.Real) or np.ndim(value) == 0
    except ValueError:  # a ragged sequence: the relation check names it (theta_per_fog)
        scalar = False
    if scalar:
        return PARAMS["theta"].check(value, func)
    return value


def _check_e_max(value, func: str):
    return check_count(value, "e_max", func, high=PARAMS["e_max"].high)


def theta_per_fog(theta, n_fog: int, func: str) -> np.ndarray:
    """θ as one float per fog node (a number for all, or one per fog node); inf allowed.

    Parameters
    ----------
    theta : float or sequence of float
        θ [s] in [0, 1e6] or ``math.inf`` (never offload); a one-element sequence counts as
        one number for all.
    n_fog : int
        Fog nodes of the scenario.
    func : str
        The public function named in the error.

    Returns
    -------
    numpy.ndarray
        ``n_fog`` values of θ.
    """
    try:
        raw = np.asarray(theta)
    except (TypeError, ValueError):  # a ragged sequence: broadcast says what is wrong
        raw = np.asarray(None)
    never = np.isposinf(raw) if raw.dtype.kind == "f" else np.zeros(raw.shape, dtype=bool)
    value = np.where(never, 0.0, raw) if never.any() else theta
    if never.ndim == 1 and never.size == 1:
        value, never = value[0], never[0]
    try:
        arr = broadcast(value, "theta", func, n_fog, low=0.0, high=PARAMS["theta"].high)
    except ParameterError as err:
        raise ParameterError(f"{err} θ = inf (never offload) is allowed as well.") from None
    arr[np.broadcast_to(never, arr.shape)] = math.inf
    return arr


class _Relations(ParamsModel):
    """The checks between fields, and the compiled scenario the functions read."""

    def check_relations(self, func: str, fields) -> None:
        """θ per fog node (a sequence) has one value per fog node of the scenario; a
        function without a scenario takes one θ."""
        if "theta" not in fields or isinstance(self.theta, numbers.Real):
            return
        if "scenario" in fields:
            theta_per_fog(self.theta, self.network.n_fog, func)
        else:
            PARAMS["theta"].check(self.theta, func)  # raises: one number only

    def pick(self, *names: str) -> dict:
        """``{name: value}`` of the fields ``names``, in that order (a run's settings)."""
        return {name: getattr(self, name) for name in names}

    @property
    def network(self) -> Compiled:
        """The scenario as arrays (the default scenario when ``scenario`` is None)."""
        return _default_network() if self.scenario is None else self.scenario

    @property
    def thetas(self) -> np.ndarray:
        """θ of every fog node of :attr:`network`."""
        return theta_per_fog(self.theta, self.network.n_fog, type(self).__name__)


P1Params = PARAMS.model(
    "P1Params",
    extra={"scenario": (nx.Graph | Compiled | None, None, _check_scenario)},
    checks={"theta": _check_theta, "e_max": _check_e_max},
    base=_Relations,
    doc="""P1's parameters, one validated object: a row of PARAMS per field, and the scenario.

    Every public function of the model and the simulation takes it, or its keywords
    (:func:`workbench.params.takes`).

    Parameters
    ----------
    scenario : networkx.Graph or Compiled, optional
        A scenario graph (:mod:`workbench.fog.scenario`), compiled to arrays when the object
        is built; None: :func:`~workbench.fog.default_scenario`.
    """,
)
