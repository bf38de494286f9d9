"""What the files in this folder compute from the GPU at import — run on a machine with one (`python3
record.py > h100.json` on the H100), and offline under ttinspect's virtual device (tests/test_virtual_device.py
imports `record` and compares): the same keys, the same values for the same target.

Only the standard library, torch and Triton: it runs where ttinspect is not installed."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Attributes of torch.cuda.get_device_properties() that a real device and the virtual one both report.
PROPERTIES = ("name", "major", "minor", "multi_processor_count", "total_memory", "L2_cache_size", "warp_size",
              "regs_per_multiprocessor", "shared_memory_per_block", "shared_memory_per_block_optin",
              "shared_memory_per_multiprocessor", "max_threads_per_multi_processor", "is_integrated",
              "is_multi_gpu_board", "clock_rate", "memory_clock_rate", "memory_bus_width", "gcnArchName")


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"device_paths_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def flat(config) -> dict:
    return {**config.kwargs, "num_warps": config.num_warps, "num_stages": config.num_stages}


def files() -> dict:
    """What each file chose: its configs, its sizes, its pruned list."""
    tutorial = load("tutorial_matmul")
    capability = load("capability_configs")
    sms = load("num_sms")
    allocates = load("allocates")
    kept = sms.fits_in_shared_memory(sms.CONFIGS, {})
    return {
        "tutorial_matmul": {"configs": [flat(c) for c in tutorial.matmul_kernel.configs],
                            "device": str(tutorial.DEVICE)},
        "capability_configs": {"BLOCK": capability.BLOCK, "STAGES": capability.STAGES, "WARPS": capability.WARPS,
                               "HAS_BF16": capability.HAS_BF16, "DEVICE_NAME": capability.DEVICE_NAME},
        "num_sms": {"NUM_SMS": sms.NUM_SMS, "NUM_SM": sms.NUM_SM, "NUM_REGS": sms.NUM_REGS,
                    "SIZE_SMEM": sms.SIZE_SMEM, "WARP_SIZE": sms.WARP_SIZE,
                    "kept": [sms.CONFIGS.index(c) + 1 for c in kept]},
        "allocates": {"ON_GPU": allocates.ON_GPU, "ELEMENT_BYTES": allocates.ELEMENT_BYTES,
                      "BLOCK": allocates.BLOCK, "WORKSPACE": [str(allocates.WORKSPACE.device),
                                                              list(allocates.WORKSPACE.shape)]},
    }


def device() -> dict:
    """The device as torch and Triton's driver describe it."""
    import torch
    import triton

    props = torch.cuda.get_device_properties(0)
    target = triton.runtime.driver.active.get_current_target()
    utils = triton.runtime.driver.active.utils.get_device_properties(0)
    return {
        "torch": {name: getattr(props, name) for name in PROPERTIES if hasattr(props, name)},
        "torch_repr": repr(props),
        "torch_version_cuda": torch.version.cuda, "torch_version_hip": torch.version.hip,
        "capability": list(torch.cuda.get_device_capability()),
        "device_name": torch.cuda.get_device_name(),
        "is_bf16_supported": torch.cuda.is_bf16_supported(),
        "target": [target.backend, target.arch, target.warp_size],
        "triton_utils": dict(utils),
        "versions": {"torch": torch.__version__, "triton": triton.__version__},
    }


if __name__ == "__main__":
    json.dump({"device": device(), "files": files()}, sys.stdout, indent=1, sort_keys=True, default=str)
    print()
