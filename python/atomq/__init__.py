"""atomq: the queueing model of the GPU atomic units, from Python (host-only).

Tables, profiles, the model's analysis and what-ifs, and run documents as plain records:
docs/usage.md, "Python". `python -m atomq` runs atomq's command line. `atomq.profile()` profiles
the kernels launched inside a `with` block (a CUDA build's libatomq_profile.so, through ctypes)."""
from .profiling import profile  # noqa: F401 (pure Python: works without the compiled module)

try:
    from ._atomq import *  # noqa: F401,F403 (the module's functions and types)
    from ._atomq import __version__  # noqa: F401
except ImportError as _module_error:  # built for another Python: profile() still works
    from ._version import __version__  # noqa: F401

    def __getattr__(name):
        raise ImportError(f"atomq.{name} needs atomq's compiled module, which does not load in this Python: "
                          f"{_module_error}")
