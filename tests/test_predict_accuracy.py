"""The accuracy tables in docs/predict.md are the ones scripts/perf_accuracy.py prints for the stored GPU
datasets (tests/data/perf/NAME_points.json, measured by scripts/perf_dataset.py on an H100 SXM and on an H200)
and their stored predictions (NAME_predicted.json): the figures are held as recorded, not against a threshold.
The H100 set is the one the model's constants were fitted on; the H200 set is the held-out check."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "perf"
sys.path.insert(0, str(ROOT / "scripts"))

DATASETS = ("h100", "h200")
# the corpus's public-library kernels timed on an H200 (scripts/perf_library_points.py), ranked by
# scripts/perf_library_accuracy.py: never fitted on, and a second run of the same points on another H200 machine
LIBRARY = "h200_library"


@pytest.mark.parametrize("name", (*DATASETS, LIBRARY))
def test_the_docs_table_is_the_scripts(name):
    from perf_accuracy import groups, predicted_path, table

    dataset = DATA / f"{name}_points.json"
    data = json.loads(dataset.read_text())
    printed = table(groups(data, json.loads(predicted_path(dataset).read_text())))
    assert printed in (ROOT / "docs" / "predict.md").read_text()


@pytest.mark.parametrize("name", (*DATASETS, LIBRARY))
def test_every_measured_point_has_a_stored_prediction_or_its_reason(name):
    from perf_accuracy import predicted_path

    dataset = DATA / f"{name}_points.json"
    predicted = {row["id"]: row for row in json.loads(predicted_path(dataset).read_text())}
    for point in json.loads(dataset.read_text())["points"]:
        if not point.get("ms"):  # not timed (its error is in the point): nothing to predict
            continue
        row = predicted[point["id"]]
        assert row["predicted_ms"] is not None or row["reason"], point["id"]


def test_the_docs_agreement_table_is_the_scripts():
    """The two GPUs' own orders (no model): the ceiling a group's Spearman can be judged against."""
    from perf_accuracy import agreement, agreement_table

    h100, h200 = (json.loads((DATA / f"{name}_points.json").read_text()) for name in DATASETS)
    assert agreement_table(agreement(h100, h200)) in (ROOT / "docs" / "predict.md").read_text()
    first, again = (json.loads((DATA / f"{LIBRARY}_{name}.json").read_text()) for name in ("points", "points_again"))
    assert agreement_table(agreement(first, again)) in (ROOT / "docs" / "predict.md").read_text()


@pytest.mark.parametrize("other_ms, rho", [((1.0, 2.0, 3.0), 1.0), ((3.0, 2.0, 1.0), -1.0), ((1.0, 3.0, 2.0), 0.5)])
def test_agreement_is_the_spearman_of_two_sets_measured_times_by_point(other_ms, rho):
    from perf_accuracy import agreement

    points = [{"id": i, "group": "g", "ms": ms} for i, ms in enumerate((1.0, 2.0, 4.0))]
    other = [{"id": i, "group": "g", "ms": ms} for i, ms in enumerate(other_ms)]
    (row,) = agreement({"points": points}, {"points": other})
    assert (row["points"], row["spearman"], row["spread"]) == (3, pytest.approx(rho), 4.0)
