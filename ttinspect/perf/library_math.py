"""How much of a math-library call runs on the SFU: a `tt.extern_elementwise` names a libdevice function
(`__nv_fast_powf`, `__nv_expf`, ...) that the TTIR does not expand, so the element-wise ops seen there say
nothing of its cost. The fast-math forms are the PTX `.approx` instructions, each one MUFU op per element
(CUDA C Programming Guide, "Intrinsic Functions", and libdevice's own definitions): `__nv_fast_powf` is
lg2.approx then ex2.approx (2), `__nv_fast_tanf` sin, cos and a reciprocal (3). The accurate forms that
libdevice also builds on an approximate instruction (expf on ex2.approx, sqrtf, rsqrtf) count it; those it
computes with a polynomial in FMAs (logf, powf, sinf, erff, ...) count 0 here — their instructions are in the
SASS counts the issue term reads. A function not in the table counts 0, as before: its cost is then the
issue term's alone.

(Counting them missed a bisection over 32,000 columns with three fast powf per element per step: 7.9·10⁹
MUFU ops, 1.9 ms of SFU on an H200 — the best config's measured 1.88 ms — charged nothing.)
"""

from __future__ import annotations

import re

# libdevice function -> MUFU ops per element (f32; the f64 forms are software sequences, not listed)
MUFU_PER_CALL = {
    "__nv_fast_powf": 2, "__nv_fast_expf": 1, "__nv_fast_exp10f": 1, "__nv_fast_logf": 1, "__nv_fast_log2f": 1,
    "__nv_fast_log10f": 1, "__nv_fast_sinf": 1, "__nv_fast_cosf": 1, "__nv_fast_tanf": 3,
    "__nv_fast_fdividef": 1, "__nv_exp2f": 1, "__nv_expf": 1, "__nv_exp10f": 1, "__nv_sqrtf": 1,
    "__nv_rsqrtf": 1, "__nv_frcp_rn": 1,
}
_SYMBOL_RE = re.compile(r'symbol\s*=\s*"([^"]+)"')


def mufu_per_element(op_text: str) -> int:
    """MUFU ops one element of a `tt.extern_elementwise` costs (0: none known, or not a library call)."""
    found = _SYMBOL_RE.search(op_text)
    return MUFU_PER_CALL.get(found[1], 0) if found else 0
