"""Numba kernels: plain arrays and scalars in and out, no Python objects."""
