"""The analytic model of fog offloading, in one place: the fog-node chain, P_j, the network.

The model is split by role (this module gathers the public names):

- :mod:`workbench.fog.chain`: one fog node's two-class (n, n') chain (:func:`solve_chain`),
  its mean work W̄ (:func:`mean_work`) and mean counts (:func:`mean_in_system`);
- :mod:`workbench.fog.acceptance`: P_j = P(W < θ) (:func:`accept_probability`) through the
  sum of two Erlang laws (:func:`erlang_sum_cdf`, stable; the paper's partial fractions in
  :func:`erlang_sum_cdf_partial_fractions`) and the q = 0.5 closed forms
  (:func:`ps_closed_form`);
- :mod:`workbench.fog.network`: the flow equations and the λ_j fixed point
  (:func:`analyze`, :func:`fog_loads`);
- :mod:`workbench.fog.delays`: the cloud servers (Pollaczek–Khinchine, the M/G/1 formula of
  :func:`workbench.erlang.pollaczek_khinchine`), eq. 6 and eq. 2 (:class:`NetworkAnalysis`).

References
----------
Yousefpour, Ishigaki, Gour, Jue, "On reducing IoT service delay via fog offloading", IEEE
Internet of Things Journal 5(1), 2018: eq. 2 (service delay), eq. 6 (L_ij(x)), Sec. IV-G
(the (n, n') chain, W̄), eq. 18 (P_j), eqs. 22–28 (flows), eqs. 29–31 (cloud, P-K).
"""

from __future__ import annotations

from workbench.fog.acceptance import (
    accept_probability,
    erlang_sum_cdf,
    erlang_sum_cdf_partial_fractions,
    ps_closed_form,
)
from workbench.fog.chain import ChainSolution, mean_in_system, mean_work, solve_chain
from workbench.fog.delays import NetworkAnalysis
from workbench.fog.network import analyze, fog_loads

__all__ = [
    "ChainSolution",
    "solve_chain",
    "mean_work",
    "mean_in_system",
    "accept_probability",
    "erlang_sum_cdf",
    "erlang_sum_cdf_partial_fractions",
    "ps_closed_form",
    "NetworkAnalysis",
    "analyze",
    "fog_loads",
]
