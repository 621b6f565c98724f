"""Shared test helpers: the drumplot package on sys.path, fixture paths, temp CSV writing."""

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PLOT_DIR = os.path.dirname(HERE)
FIXTURES = os.path.join(HERE, "fixtures")
sys.path.insert(0, PLOT_DIR)

LOG = os.path.join(FIXTURES, "strikes-250hz.csv")
LABELS = os.path.join(FIXTURES, "strikes-labels.csv")
HITS = os.path.join(FIXTURES, "strikes-hits.csv")
SWEEP = os.path.join(FIXTURES, "strikes-sweep.csv")
SWEEP_UNSCORED = os.path.join(FIXTURES, "strikes-sweep-unscored.csv")


@pytest.fixture
def write(tmp_path):
    """write(name, text) -> path of a new file holding exactly `text` (str or bytes)."""

    def _write(name, text):
        path = tmp_path / name
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
        return str(path)

    return _write


@pytest.fixture(params=["numpy", "pandas"])
def engine(request, monkeypatch):
    """Runs a test with numpy's reader and, when pandas is installed, with pandas' too."""
    from drumplot import readers

    if request.param == "pandas":
        if readers._pd is None:
            pytest.skip("pandas is not installed (optional)")
        monkeypatch.setattr(readers, "USE_PANDAS", True)
    else:
        monkeypatch.setattr(readers, "USE_PANDAS", False)
    return request.param
