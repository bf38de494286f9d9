"""How a serving engine picks its platform at import: NVML first, then AMD SMI, then torch.version.hip
(the shape of the detection real engines do; every exception of a missing library means "not this one")."""

import importlib

import torch


def nvidia() -> bool:
    try:
        nvml = importlib.import_module(NVML_MODULE)
        nvml.nvmlInit()
        try:
            return nvml.nvmlDeviceGetCount() > 0
        finally:
            nvml.nvmlShutdown()
    except Exception as error:
        if "nvml" not in type(error).__name__.lower() and not isinstance(error, ImportError):
            raise
        return False


def amd() -> bool:
    try:
        smi = importlib.import_module(AMDSMI_MODULE)
        smi.amdsmi_init()
        try:
            return len(smi.amdsmi_get_processor_handles()) > 0
        finally:
            smi.amdsmi_shut_down()
    except Exception:
        return False


NVML_MODULE = globals().get("NVML_MODULE", "pynvml")  # a test may name a vendored copy, set before this runs
AMDSMI_MODULE = globals().get("AMDSMI_MODULE", "amdsmi")
PLATFORM = "cuda" if nvidia() else "rocm" if amd() or torch.version.hip is not None else "unspecified"
