"""A program using a library (runtime_build_site/) that builds its CUDA backend at run time: where the library
catches the build's failure (the way named by argv[1]) it takes its Triton fallback under capture --as, as on a
machine where the build fails; the user's own guard around the library's call is no fallback of the library's
(the build is stood in, and the library's use of it stops the program naming that line)."""
import sys

import torch

import jit_ops

x = torch.ones(1000, device="cuda")
print("toolkit include:", jit_ops.TOOLKIT_INCLUDE)
try:
    print("path:", jit_ops.scale(x, caught=sys.argv[1]))
except RuntimeError:  # the user's guard: not the library's
    print("path: none")
