"""Offloading workbench: jitted kernels, one package per paper, one notebook per paper.

Papers (``workbench.registry.PAPERS``; each package has the same skeleton: params, model,
kernels, simulation, figures, views, claims)
--------------------------------------------------------------------------------------
- :mod:`workbench.redundancy`   P4, replication in an edge loss system (Peng & Soljanin)
- :mod:`workbench.datacenters`  P3, two cooperating data centers (Fricker et al.)
- :mod:`workbench.fog`          P1, fog offloading to reduce IoT service delay (Yousefpour et al.)
- :mod:`workbench.hierarchy`    P5, two-way offloading in an edge hierarchy with RED (Yin et al.)
- :mod:`workbench.proactive`    P2, proactive edge computing with caching and matching
  (Elbamby et al.)

General building blocks
-----------------------
:mod:`workbench.erlang` (Erlang-B), :mod:`workbench.radio` (path loss, fading, SINR rates),
:mod:`workbench.clustering` (similarity matrices, spectral clustering),
:mod:`workbench.caching` (LRU, LFU, popularity caches), :mod:`workbench.matching`
(deferred acceptance, hedged rounds), :mod:`workbench.red` (random early detection), over the
generic kernels in :mod:`workbench.kernels`.
"""

from workbench import _kernel_cache  # noqa: F401  (first: keys numba's cache by the kernels)
from workbench.erlang import erlang_b
from workbench.validation import EmptyRunError, ParameterError, UnstableRegimeError

__all__ = ["erlang_b", "ParameterError", "UnstableRegimeError", "EmptyRunError"]
__version__ = "0.2.0"
