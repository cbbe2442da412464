"""Numba kernels: plain arrays and scalars in and out, no Python objects.

Writing a fast event loop with numba (measured on the P1 and P5 simulators):

- Never reassign an array variable inside the loop (``heap = grow(heap)``): numba then
  increments and decrements the reference count of every such array on each iteration, two
  atomic instructions per array per event. Size the arrays once for the most that can be
  pending (P1's heap: one event per request plus one per node) or leave the loop to grow.
- Helpers called per event take scalars, or are ``inline="always"`` without branches: an
  ``@njit`` helper with array arguments pays the same reference counting on every call.
- Check with ``perf record -p <pid>``: ``NRT_incref``/``NRT_decref`` near the top of the
  profile mean the loop pays for it.
- Large outputs cost page faults on first touch: prefer fewer, narrower per-request arrays.
"""
