"""The virtual device against a real one: what every corpus module computes from the GPU at import (its kernels'
autotune config lists, its NUM_SMS-style constants), recorded on the H100 (tests/data/corpus_h100/, made with
`python scripts/device_configs.py record`), must be what ttinspect's virtual sm_90 device makes it compute here."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RECORDED = ROOT / "tests" / "data" / "corpus_h100" / "device_configs_h100.json"
LIBRARIES = ("liger_kernel", "fla", "flag_gems", "torchao", "gemlite")


def test_every_corpus_module_computes_on_the_virtual_h100_what_it_computed_on_the_h100():
    missing = [name for name in LIBRARIES if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"the corpus libraries are not installed ({', '.join(missing)}): pip install .[corpus] --no-deps")
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import device_configs
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    real = json.loads(RECORDED.read_text())
    assert real["machine"]["device"] == "NVIDIA H100 80GB HBM3"
    lines = device_configs.compare(real, device_configs.under_virtual("sm_90"))
    assert len(lines) == len(real["modules"]) >= 50
    assert not [line for line in lines if "DIFFERS" in line], "\n".join(lines)
