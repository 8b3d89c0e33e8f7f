"""atomq.profile(): profile the kernels this process launches inside a `with` block, in-process,
the way torch.profiler is used:

    with atomq.profile(kernel="regex:histogram") as run:
        torch.histc(x, bins=256)
    for k in run.kernels:
        print(k["kernel"], k["class"], k["binding_unit"], k["best_what_if"])

It loads libatomq_profile.so (a CUDA build's lib/; $ATOMQ_PROFILE_LIBRARY names another) with
ctypes, so it needs no compiled Python module. Every launch inside the block is replayed once per
counter pass (CUPTI kernel replay), as `atomq analyze` does; on leaving the block the run
document (atomq.analysis_run, the same as `atomq analyze -o`) is written to `output` (default: a
file in the temporary folder) and read back."""
import ctypes
import json
import os
import pathlib
import tempfile

_ERROR_SIZE = 4096
_library = None


def _library_path():
    if os.environ.get("ATOMQ_PROFILE_LIBRARY"):
        return pathlib.Path(os.environ["ATOMQ_PROFILE_LIBRARY"])
    here = pathlib.Path(__file__).resolve().parent
    # An installed package (lib/python3/dist-packages/atomq), a wheel's lib/, a build tree's python/atomq.
    for candidate in (here / "lib", here.parents[2], here.parents[1] / "lib"):
        path = candidate / "libatomq_profile.so"
        if path.is_file():
            return path
    return None


def _load():
    global _library
    if _library is None:
        path = _library_path()
        if path is None:
            raise RuntimeError("atomq.profile needs libatomq_profile.so from a CUDA build of atomq (lib/); "
                               "set ATOMQ_PROFILE_LIBRARY to its path")
        lib = ctypes.CDLL(str(path))
        for name, args in (("atomq_profile_begin", [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]),
                           ("atomq_profile_end", [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t])):
            getattr(lib, name).argtypes = args
            getattr(lib, name).restype = ctypes.c_int
        _library = lib
    return _library


def _kernel_record(kernel, index):
    """One launch of the run document as a flat record (the keys of read_run's records that the
    stored analysis holds)."""
    profile, analysis = kernel.get("profile", {}), kernel.get("analysis") or {}
    best = analysis.get("recommended_what_if") or {}
    utilization = analysis.get("utilization") or {}
    return {
        "launch": index,
        "kernel": profile.get("kernel", {}).get("name"),
        "time_ns": profile.get("counters", {}).get("gpu__time_duration.sum"),
        "evaluated": analysis.get("evaluated"),
        "class": analysis.get("class"),
        "binding_unit": analysis.get("binding_unit"),
        "U_mean": utilization.get("mean"),
        "U_max": utilization.get("max"),
        "best_what_if": best.get("change"),
        "best_what_if_id": best.get("id"),
        "predicted_gain_low": best.get("gain_low"),
        "predicted_gain_high": best.get("gain_high"),
    }


class profile:
    """Profiles the kernel launches of this process between entering and leaving the block.

    kernel: NAME or regex:RE (as `atomq analyze -k`); launch_skip, launch_count: as -s and -c;
    nvtx_include, nvtx_exclude: ncu's NVTX syntax; profile_from_start=False: only launches
    between cudaProfilerStart and cudaProfilerStop; table: a service-time table (default: the
    chip's, as atomq analyze chooses it); output: where the run document goes."""

    def __init__(self, kernel=None, launch_skip=0, launch_count=-1, nvtx_include=(), nvtx_exclude=(),
                 profile_from_start=True, table=None, output=None):
        self.options = {"kernel": kernel or "", "launch_skip": int(launch_skip), "launch_count": int(launch_count),
                        "nvtx_include": list(nvtx_include), "nvtx_exclude": list(nvtx_exclude),
                        "profile_from_start": bool(profile_from_start), "table": str(table or ""),
                        "command": "atomq.profile() in " + os.path.basename(os.sys.argv[0] or "python")}
        self.path = pathlib.Path(output) if output else None
        self.document = None
        self.kernels = []

    def __enter__(self):
        error = ctypes.create_string_buffer(_ERROR_SIZE)
        if _load().atomq_profile_begin(json.dumps(self.options).encode(), error, _ERROR_SIZE) != 0:
            raise RuntimeError(error.value.decode(errors="replace"))
        return self

    def __exit__(self, exc_type, exc, tb):
        if self.path is None:
            handle, name = tempfile.mkstemp(prefix="atomq-profile-", suffix=".json")
            os.close(handle)
            self.path = pathlib.Path(name)
        error = ctypes.create_string_buffer(_ERROR_SIZE)
        if _load().atomq_profile_end(str(self.path).encode(), error, _ERROR_SIZE) != 0:
            if exc_type is None:
                raise RuntimeError(error.value.decode(errors="replace"))
            return False  # the block's own exception goes first
        self.document = json.loads(self.path.read_text())
        self.kernels = [_kernel_record(k, i) for i, k in enumerate(self.document.get("kernels", []))]
        return False

    def records(self, table=None):
        """read_run's records of this run (the columns of summary.csv; needs the compiled module)."""
        from . import read_run
        return read_run(str(self.path), table)
