"""The CPU shim's second level: code that refuses to start without a GPU sees one, the CPU.

Loaded only when a shimmed run ended for want of a GPU all the same (MINER_CPU_SHIM_CLAIM=1):
an `assert torch.cuda.is_available()`, a `device_count()` check, a project's own "No GPUs
available", a CUDA call the first level does not keep on the CPU. `torch.cuda` then says one
device is there, and the calls that would reach the driver answer for the CPU instead: device
facts (a compute capability of (0, 0), so that fused kernels are not chosen), memory figures,
random states, events and streams, automatic mixed precision (off; the CPU runs float32), and
`DataParallel`, which wraps nothing. Each call is counted in the report, as the first level's
rewrites are.
"""

import contextlib
import os
import time

import _miner_standins as common

CAPABILITY = (0, 0)  # below every GPU generation: no fused or tensor-core path is chosen
_CLOCK = getattr(time, "perf_counter", time.time)  # Python 2 has no perf_counter


class _Properties(object):
    """What `torch.cuda.get_device_properties` tells of the device: the CPU's."""

    def __init__(self):
        self.name = "CPU (miner cpu shim)"
        self.major, self.minor = CAPABILITY
        self.total_memory = _host_memory()
        self.multi_processor_count = _cpu_count()
        self.is_integrated = False
        self.is_multi_gpu_board = False

    def __repr__(self):
        memory = self.total_memory >> 20
        return "_CudaDeviceProperties(name='%s', total_memory=%dMB)" % (self.name, memory)


class _Event(object):
    """`torch.cuda.Event`, timed on the host clock."""

    def __init__(self, *args, **kwargs):
        self.at = None

    def record(self, *args, **kwargs):
        self.at = _CLOCK()

    def synchronize(self):
        return None

    def wait(self, *args, **kwargs):
        return None

    def query(self):
        return True

    def elapsed_time(self, end):
        return ((end.at or 0.0) - (self.at or 0.0)) * 1000.0


class _Stream(object):
    """`torch.cuda.Stream`: work on the CPU is already in order."""

    def __init__(self, *args, **kwargs):
        self.device = "cpu"

    def synchronize(self):
        return None

    def wait_stream(self, *args, **kwargs):
        return None

    def wait_event(self, *args, **kwargs):
        return None

    def record_event(self, event=None):
        event = event or _Event()
        event.record()
        return event

    def query(self):
        return True


def _host_class(real, host):
    """A subclass of PyTorch's own class (code checks `issubclass(torch.cuda.Event,
    torch._EventBase)`) whose instances are the host's stand-in."""
    try:

        class HostOnly(real):  # type: ignore[valid-type,misc]
            def __new__(cls, *args, **kwargs):
                return host(*args, **kwargs)

    except TypeError:  # a class that cannot be subclassed
        return host
    HostOnly.__name__ = HostOnly.__qualname__ = getattr(real, "__name__", host.__name__)
    HostOnly.__module__ = getattr(real, "__module__", "torch.cuda")
    return HostOnly


def _cpu_count():
    """os.cpu_count, which Python 2 lacks (multiprocessing has it there)."""
    if hasattr(os, "cpu_count"):
        return os.cpu_count() or 1
    import multiprocessing

    try:
        return multiprocessing.cpu_count()
    except NotImplementedError:
        return 1


def _host_memory():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 16 * 2**30


def _answer(kind, value):
    def answer(*args, **kwargs):
        common.shim_used(kind)
        return value() if callable(value) else value

    return answer


@contextlib.contextmanager
def _nothing_around(*args, **kwargs):
    yield


def _context(kind):
    def context(*args, **kwargs):
        common.shim_used(kind)
        return _nothing_around()

    return context


def _scaler(real, kind):
    """A gradient scaler for CUDA, disabled: it hands back the loss and steps the optimiser."""

    def make(*args, **kwargs):
        common.shim_used(kind)
        kwargs["enabled"] = False
        if args and isinstance(args[0], common.TEXT):  # torch.amp.GradScaler("cuda", ...)
            args = ("cpu",) + tuple(args[1:])
        try:
            return real(*args, **kwargs)
        except TypeError:
            return real(enabled=False)

    return make


def _autocast(real, kind):
    """`torch.autocast("cuda")` off: mixed precision is a GPU's; the CPU runs float32."""

    def make(*args, **kwargs):
        device = kwargs.get("device_type", args[0] if args else None)
        if device is None or str(device).startswith("cuda"):
            common.shim_used(kind)
            return _nothing_around()
        return real(*args, **kwargs)

    return make


def _without_claim(torch, init, kind):
    """A constructor that asks for the devices (DataParallel) runs as on a CPU-only machine."""

    def construct(self, *args, **kwargs):
        common.shim_used(kind)
        claimed = torch.cuda.is_available
        torch.cuda.is_available = lambda: False
        try:
            init(self, *args, **kwargs)
        finally:
            torch.cuda.is_available = claimed

    return construct


def claim(torch):
    """Let `torch.cuda` say one device is there and answer for it on the CPU."""
    cuda = torch.cuda
    cuda.is_available = _answer("torch.cuda.is_available() claimed", True)
    cuda.device_count = _answer("torch.cuda.device_count() claimed", 1)
    answers = {
        "current_device": 0, "get_device_name": "CPU (miner cpu shim)",
        "get_device_capability": CAPABILITY, "get_device_properties": _Properties,
        "is_bf16_supported": False, "memory_allocated": 0, "max_memory_allocated": 0,
        "memory_reserved": 0, "max_memory_reserved": 0, "memory_cached": 0,
        "max_memory_cached": 0, "reset_peak_memory_stats": None,
        "reset_max_memory_allocated": None, "reset_accumulated_memory_stats": None,
        "empty_cache": None, "ipc_collect": None, "manual_seed": None, "manual_seed_all": None,
        "seed": None, "seed_all": None, "init": None, "set_per_process_memory_fraction": None,
        "get_rng_state": torch.get_rng_state, "get_rng_state_all": lambda: [torch.get_rng_state()],
        "set_rng_state": None, "set_rng_state_all": None, "initial_seed": torch.initial_seed,
        "mem_get_info": lambda: (_host_memory(), _host_memory()), "current_stream": _Stream,
        "default_stream": _Stream,
    }  # fmt: skip
    for name, value in answers.items():
        if hasattr(cuda, name):
            setattr(cuda, name, _answer("torch.cuda.%s()" % name, value))
    for name in ("device", "stream"):
        setattr(cuda, name, _context("torch.cuda.%s()" % name))
    nvtx = getattr(cuda, "nvtx", None)
    if nvtx is not None and hasattr(nvtx, "range"):
        nvtx.range = _context("torch.cuda.nvtx.range()")
    cuda.Event, cuda.Stream = _host_class(cuda.Event, _Event), _host_class(cuda.Stream, _Stream)
    amp = getattr(cuda, "amp", None)
    if amp is not None:
        if hasattr(amp, "GradScaler"):
            amp.GradScaler = _scaler(amp.GradScaler, "torch.cuda.amp.GradScaler(disabled)")
        if hasattr(amp, "autocast"):
            amp.autocast = _context("torch.cuda.amp.autocast(off)")
    top_amp = getattr(torch, "amp", None)
    if top_amp is not None and hasattr(top_amp, "GradScaler"):
        top_amp.GradScaler = _scaler(top_amp.GradScaler, "torch.amp.GradScaler(disabled)")
    if hasattr(torch, "autocast"):
        torch.autocast = _autocast(torch.autocast, "torch.autocast(cuda, off)")
    parallel = torch.nn.DataParallel
    parallel.__init__ = _without_claim(torch, parallel.__init__, "DataParallel(one CPU)")
