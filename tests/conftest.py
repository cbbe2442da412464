"""Suite-wide ordering: the real-browser tests run last.

By then the notebooks have executed headless once, so every numba kernel is compiled and
cached (NUMBA_CACHE_DIR) and the JupyterLab/Voila kernels only load it.
"""


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)
