"""`ttinspect check`: what is wrong with a compiled kernel — each finding with its severity, the evidence
(instructions or IR lines and the Python line they come from), why it matters, and the fix with numbers.

    from ttinspect import inspect
    for finding in inspect("tileon", arch="sm_90").findings:
        print(finding.severity, finding.id, finding.title)

Rules (docs/check.md): TTI001 loop-not-pipelined, TTI002 older-mma-path, TTI003 register-spills,
TTI004 occupancy-limited, TTI005 narrow-global-access, TTI006 shared-memory-limit, TTI007 no-tma,
TTI008 convert-layout-in-loop and TTI009 serialized-ring (Gluon kernels).
"""

from ttinspect.check.model import SEVERITIES, Evidence, Finding, severity_rank
from ttinspect.check.run import at_least, check, check_reference, rules

__all__ = ["SEVERITIES", "Evidence", "Finding", "severity_rank", "rules", "at_least", "check", "check_reference"]
