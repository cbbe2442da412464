"""P3's exact chain and scaling limit where their own tests were silent: mutants of
``workbench/datacenters/{model,exact,limit}.py`` (``benchmarks/mutation.py
datacenters_model``)."""
