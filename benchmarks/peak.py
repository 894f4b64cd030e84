"""The peak resident set a benchmark's child script reports about itself."""

from __future__ import annotations

__all__ = ["PEAK_KIB_SOURCE"]

#: Source of ``peak_kib()``, pasted into the scripts the benchmarks run with
#: ``python -c`` (they may run another checkout's code, so they cannot import
#: this module). VmHWM belongs to this process image; ``ru_maxrss`` would
#: carry the parent's peak across fork + exec on Linux, so it is the fallback.
PEAK_KIB_SOURCE = """
def peak_kib():
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass  # not Linux: ru_maxrss below
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
"""
