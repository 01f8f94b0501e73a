"""The CPU shim: code written for one GPU runs on the CPU, unchanged.

PyTorch: `.cuda()` on tensors and modules returns them on the CPU; a CUDA device passed to
`.to()`, to the tensor factories (`torch.zeros(..., device="cuda")`) or to `torch.load`'s
`map_location` (or a checkpoint saved on a GPU, loaded without one) becomes the CPU;
`torch.cuda.FloatTensor` and its kin are the CPU types; `set_device`, `synchronize` and
`pin_memory` do nothing; a process group asked of NCCL forms over Gloo.
`DistributedDataParallel` of a model kept on the CPU takes no device ids. `torch.compile`
leaves the model eager: a compiler's autotuning on two cores costs minutes before the first
step, and a smoke run asks whether the code trains, not how fast. For the same reason half
precision asked for by hand (`.half()`, `.to(torch.float16)`) stays float32: a CPU runs a
float16 convolution some twenty times slower.
`torch.cuda.is_available()` still says False, so code that asks takes its own CPU path; only a
run that still ends for want of a GPU is run again with one claimed (`_miner_cpu_claim`).
TensorFlow: `tf.device('/gpu:0')` places on the CPU. Each kind of rewrite is counted in the
report.
"""

import os

import _miner_standins as common

FACTORIES = (
    "tensor", "as_tensor", "zeros", "ones", "empty", "full", "rand", "randn", "randint",
    "randperm", "arange", "linspace", "logspace", "eye", "zeros_like", "ones_like", "empty_like",
    "full_like", "rand_like", "randn_like", "randint_like", "normal",
)  # fmt: skip
CUDA_TYPES = (
    "FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
    "ByteTensor", "CharTensor", "BoolTensor", "BFloat16Tensor",
)  # fmt: skip


def _wraps(real):
    """functools.wraps, with a module name: TorchScript looks a builtin's wrapper up by it (a
    builtin's own `__module__` can be None) and then compiles the op it stands for."""

    def decorate(function):
        function = common.wraps(real)(function)
        if function.__module__ is None:
            function.__module__ = "torch"
        return function

    return decorate


def _is_cuda(device):
    if device is None:
        return False
    if isinstance(device, int) and not isinstance(device, bool):
        return True  # .to(0) / .cuda(0): a GPU index
    text = str(getattr(device, "type", device))
    return text.startswith("cuda")


def _cpu_device(value, kind):
    if _is_cuda(value):
        common.shim_used(kind)
        return "cpu"
    return value


def _to(real, kind, half):
    @_wraps(real)
    def to(self, *args, **kwargs):
        if args and not hasattr(args[0], "is_floating_point") and _is_cuda(args[0]):
            args = ("cpu",) + tuple(args[1:])
            common.shim_used(kind)
        if "device" in kwargs:
            kwargs["device"] = _cpu_device(kwargs["device"], kind)
        if any(a is half for a in args) or kwargs.get("dtype") is half:
            common.shim_used(kind.split(".")[0] + ".to(float16) as float32")
            args = tuple(a for a in args if a is not half)
            kwargs.pop("dtype", None)
            if not args and "device" not in kwargs:
                return _in_full_precision(self)
        return real(self, *args, **kwargs)

    return to


def _in_full_precision(value):
    """A module or a floating tensor as it is (float32); an integer tensor as float32, as
    float16 of it would be floating (`torch.ones(3, dtype=torch.long).half()`)."""
    if hasattr(value, "is_floating_point") and not value.is_floating_point():
        return value.float()
    return value


def _full_precision(kind):
    """`.half()` on the CPU: `_in_full_precision`."""

    def half(self, *args, **kwargs):
        common.shim_used(kind)
        return _in_full_precision(self)

    return half


def _stay(kind):
    def cuda(self, *args, **kwargs):
        common.shim_used(kind)
        return self

    return cuda


def _factory(real, kind):
    @_wraps(real)
    def make(*args, **kwargs):
        if "device" in kwargs:
            kwargs["device"] = _cpu_device(kwargs["device"], kind)
        return real(*args, **kwargs)

    return make


def _load(real):
    @_wraps(real)
    def load(*args, **kwargs):
        where = kwargs.get("map_location", args[1] if len(args) > 1 else None)
        if where is None:  # a checkpoint saved on a GPU needs one; a CPU one loads as it is
            try:
                return real(*args, **kwargs)
            except RuntimeError as exc:
                if "cuda" not in str(exc).lower():
                    raise
                if hasattr(args[0] if args else None, "seek"):
                    args[0].seek(0)
        elif not (_is_cuda(where) or isinstance(where, dict)):
            return real(*args, **kwargs)
        kwargs["map_location"] = "cpu"
        common.shim_used("torch.load(map_location=cpu)")
        return real(*args[:1], **kwargs)

    return load


def _nothing(kind, value=None):
    def nothing(*args, **kwargs):
        common.shim_used(kind)
        return value

    return nothing


def patch_torch(torch):
    """Keep PyTorch's CUDA calls on the CPU."""
    if torch.cuda.is_available():
        return  # a real GPU: nothing to keep off it
    torch.Tensor.cuda = _stay("Tensor.cuda()")
    torch.nn.Module.cuda = _stay("Module.cuda()")
    torch.Tensor.to = _to(torch.Tensor.to, "Tensor.to(cuda)", torch.float16)
    torch.nn.Module.to = _to(torch.nn.Module.to, "Module.to(cuda)", torch.float16)
    torch.Tensor.half = _full_precision("Tensor.half() as float32")
    torch.nn.Module.half = _full_precision("Module.half() as float32")
    torch.Tensor.pin_memory = _stay("Tensor.pin_memory()")
    register = getattr(getattr(torch.jit, "_builtins", None), "_register_builtin", None)
    for name in FACTORIES:
        real = getattr(torch, name, None)
        if real is not None:
            wrapper = _factory(real, "torch.%s(device=cuda)" % name)
            setattr(torch, name, wrapper)
            if register is not None:  # scripted code calls the op itself, not this wrapper
                register(wrapper, "aten::" + name)
    torch.load = _load(torch.load)
    for name in ("set_device", "synchronize"):
        setattr(torch.cuda, name, _nothing("torch.cuda.%s()" % name))
    for name in CUDA_TYPES:
        cpu = getattr(torch, name, None)
        if cpu is not None:
            setattr(torch.cuda, name, cpu)
    default = torch.set_default_tensor_type if hasattr(torch, "set_default_tensor_type") else None
    if default is not None:

        @_wraps(default)
        def set_default_tensor_type(kind):
            text = kind if isinstance(kind, str) else getattr(kind, "__module__", "") + "."
            if "cuda" in str(text):
                common.shim_used("torch.set_default_tensor_type(cuda)")
                kind = str(kind if isinstance(kind, str) else kind.__name__).replace(".cuda", "")
                kind = kind if kind.startswith("torch.") else "torch." + kind
            return default(kind)

        torch.set_default_tensor_type = set_default_tensor_type
    _gloo_for_nccl(getattr(torch, "distributed", None))
    _ddp_on_cpu(torch)
    _eager_for_compile(torch)
    _batch_norm_for_sync(torch)
    if os.environ.get("MINER_CPU_SHIM_CLAIM") == "1":  # the run refused to start without a GPU
        import _miner_cpu_claim

        _miner_cpu_claim.claim(torch)


def _plain_batch_norm(torch):
    """A batch norm over any number of dimensions, as SyncBatchNorm takes them."""

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError("expected at least 2D input (got %dD input)" % input.dim())

    base = torch.nn.modules.batchnorm._BatchNorm
    return type("BatchNorm", (base,), {"_check_input_dim": _check_input_dim})


def _without_sync(torch, module):
    """`module` with each SyncBatchNorm in it replaced by a plain batch norm that keeps its
    weights and running statistics: synchronising them needs GPUs, one CPU process needs none."""
    sync = torch.nn.SyncBatchNorm
    if isinstance(module, sync):
        plain = _plain_batch_norm(torch)(module.num_features, module.eps, module.momentum,
                                         module.affine, module.track_running_stats)  # fmt: skip
        plain.load_state_dict(module.state_dict())
        plain.train(module.training)
        common.shim_used("SyncBatchNorm as BatchNorm on the CPU")
        return plain
    for name, child in list(module.named_children()):
        replaced = _without_sync(torch, child)
        if replaced is not child:
            setattr(module, name, replaced)
    return module


def _batch_norm_for_sync(torch):
    """`SyncBatchNorm.convert_sync_batchnorm(model)` leaves the model's batch norms as they are
    (counted once each)."""
    sync = getattr(torch.nn, "SyncBatchNorm", None)
    if sync is None:
        return

    def convert_sync_batchnorm(module, process_group=None):
        for layer in module.modules():
            if isinstance(layer, torch.nn.modules.batchnorm._BatchNorm):
                common.shim_used("SyncBatchNorm as BatchNorm on the CPU")
        return module

    sync.convert_sync_batchnorm = staticmethod(convert_sync_batchnorm)


def _ddp_on_cpu(torch):
    """`DistributedDataParallel(model, device_ids=[rank])` over a model the shim kept on the CPU:
    the device ids, which only a GPU model takes, are left out."""
    parallel = getattr(getattr(torch, "nn", None), "parallel", None)
    ddp = getattr(parallel, "DistributedDataParallel", None)
    if ddp is None:
        return
    real = ddp.__init__

    @common.wraps(real)
    def construct(self, module, *args, **kwargs):
        on_cpu = all(p.device.type == "cpu" for p in module.parameters())
        if on_cpu:
            module = _without_sync(torch, module)
        if on_cpu and (kwargs.get("device_ids") or (args and args[0])):
            common.shim_used("DistributedDataParallel(device_ids) on the CPU")
            kwargs.pop("device_ids", None)
            kwargs.pop("output_device", None)
            args = (None,) * min(len(args), 2) + tuple(args[2:])  # device_ids, output_device
        real(self, module, *args, **kwargs)

    ddp.__init__ = construct


def _eager_for_compile(torch):
    """`torch.compile(model)`, `@torch.compile`, `@torch.compile(mode=...)` and
    `model.compile()` leave the code as it is written."""
    real = getattr(torch, "compile", None)
    if real is None:
        return
    kind = "torch.compile (eager on the CPU)"

    @_wraps(real)
    def compile(model=None, *args, **kwargs):
        common.shim_used(kind)
        if model is None:  # @torch.compile(mode=...): the decorator it returns changes nothing
            return lambda function: function
        return model

    torch.compile = compile
    if hasattr(torch.nn.Module, "compile"):

        def compile_module(self, *args, **kwargs):
            common.shim_used(kind)

        torch.nn.Module.compile = compile_module


def _gloo_for_nccl(distributed):
    """A process group asked of NCCL, which needs GPUs, forms over Gloo on the CPU."""
    real = getattr(distributed, "init_process_group", None)
    if real is None:
        return

    @_wraps(real)
    def init_process_group(*args, **kwargs):
        backend = kwargs.get("backend", args[0] if args else None)
        if isinstance(backend, str) and backend.lower() == "nccl":
            common.shim_used("init_process_group(nccl)")
            if "backend" in kwargs:
                kwargs["backend"] = "gloo"
            else:
                args = ("gloo",) + tuple(args[1:])
        return real(*args, **kwargs)

    distributed.init_process_group = init_process_group


def patch_tensorflow(tf):
    """Place `tf.device('/gpu:N')` on the CPU and allow soft placement."""
    real = getattr(tf, "device", None)
    if real is None:
        return
    config = getattr(tf, "config", None)
    soft = getattr(config, "set_soft_device_placement", None)
    if soft is not None:
        soft(True)

    @_wraps(real)
    def device(name):
        if isinstance(name, str) and "gpu" in name.lower():
            common.shim_used("tf.device(gpu)")
            name = "/cpu:0"
        return real(name)

    tf.device = device
