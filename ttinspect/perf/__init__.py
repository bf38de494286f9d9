"""The performance model: a compiled kernel's time on a named GPU, without the GPU (docs/predict.md)."""

from ttinspect.perf.devices import DEVICES, Device, device_for, find_device
from ttinspect.perf.model import Prediction
from ttinspect.perf.predict import predict, rank

__all__ = ["DEVICES", "Device", "Prediction", "device_for", "find_device", "predict", "rank"]
