"""The accuracy table in docs/predict.md is the one scripts/perf_accuracy.py prints for the stored GPU dataset
(tests/data/perf/NAME_points.json, measured by scripts/perf_dataset.py) and its stored predictions
(NAME_predicted.json): the figures are held as recorded, not against a threshold."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "perf"
sys.path.insert(0, str(ROOT / "scripts"))

DATASETS = sorted(p for p in DATA.glob("*_points.json") if (DATA / p.name.replace("_points", "_predicted")).exists())


@pytest.mark.skipif(not DATASETS, reason="no GPU dataset stored yet: run scripts/perf_dataset.py on the GPU machine, "
                                         "then scripts/perf_accuracy.py (docs/predict.md)")
@pytest.mark.parametrize("dataset", DATASETS, ids=lambda p: p.stem)
def test_the_docs_table_is_the_scripts(dataset):
    from perf_accuracy import groups, predicted_path, table

    data = json.loads(dataset.read_text())
    printed = table(groups(data, json.loads(predicted_path(dataset).read_text())))
    assert printed in (ROOT / "docs" / "predict.md").read_text()
