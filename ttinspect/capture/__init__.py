"""Capture: what a real run compiled and launched (`ttinspect capture`, `ttinspect.capture()`,
`pytest --ttinspect-capture`), recorded into a capture file (format.py) that ttinspect reads anywhere."""

from ttinspect.capture.api import capture
from ttinspect.capture.format import Capture, CaptureError, Compile, Launches, read

__all__ = ["capture", "read", "Capture", "CaptureError", "Compile", "Launches"]
