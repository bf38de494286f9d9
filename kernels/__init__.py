"""The Triton kernels that ttinspect compiles: one module per seed document, each a faithful (bug-fixed)
version of that document's kernel(s) plus a launcher that runs it on torch tensors.

`registry.VARIANTS` describes them as pure data. Installed, this folder is the package
`ttinspect_kernels`. Nothing here imports triton or torch at package import time: the CLI lists
variants without paying for either; only the per-seed modules (doc003, square, ...) import triton.
"""
