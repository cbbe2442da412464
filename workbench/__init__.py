"""Offloading workbench: jitted kernels and one model module per paper.

Papers
------
- :mod:`workbench.redundancy`  P4, replication in an edge loss system (Peng & Soljanin)
- :mod:`workbench.datacenters` P3, two cooperating data centers (Fricker et al.)
"""

from workbench.erlang import erlang_b
from workbench.validation import ParameterError, UnstableRegimeError

__all__ = ["erlang_b", "ParameterError", "UnstableRegimeError"]
__version__ = "0.1.0"
