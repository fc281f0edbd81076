"""DistributedDataParallel: one model replica per process, gradients averaged over MPI.

How a step goes (the design follows PyTorch's documented behaviour; the code is ours):

- construction broadcasts every parameter and buffer from rank 0, so all replicas start
  equal, and splits the parameters that need gradients into *buckets* of about
  ``bucket_cap_mb`` MB, in reverse registration order (roughly the order in which backward
  produces their gradients), one dtype per bucket;
- each parameter gets a post-accumulate-grad hook. When the last gradient of a bucket has
  arrived, the bucket's gradients are copied into one flat buffer and its all-reduce starts
  *asynchronously* (an MPI nonblocking collective) while backward goes on. Buckets start in
  index order on every rank, so the collectives match even when gradients arrive in a
  different order;
- our autograd engine has no hook that runs once at the end of backward (PyTorch's
  ``queue_callback``), so the hook that starts the *last* bucket also waits for all of them
  and writes the averaged gradients back into ``param.grad``: when ``backward()`` returns the
  gradients are synchronised, as in PyTorch.

Parameters that take no part in the forward pass never get a gradient hook call: with
``find_unused_parameters=True`` the forward walks the autograd graph from the outputs and
marks them ready (they contribute zeros); without it such a model makes the next forward
raise, as PyTorch's does.

torch-nn does not depend on torch-distributed: it is imported when a DDP is constructed.
"""

import contextlib

import torch
from torch.nn.modules.module import Module

__all__ = ["DistributedDataParallel"]


def _dist():
    try:
        import torch.distributed as dist
    except ImportError:
        raise ImportError(
            "DistributedDataParallel needs torch.distributed: install the torch-distributed "
            "package (pip install torch-distributed)"
        ) from None
    return dist


class _Bucket:
    """Parameters whose gradients are all-reduced together through one flat buffer."""

    def __init__(self, params):
        self.params = params
        self.offsets = []
        n = 0
        for p in params:
            self.offsets.append(n)
            n += p.numel()
        self.flat = torch.zeros(n, dtype=params[0].dtype)
        self.array = self.flat.numpy()
        self.pending = len(params)
        self.work = None


def _tensors(obj):
    """The tensors inside a (nested) forward output."""
    if isinstance(obj, torch.Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            yield from _tensors(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from _tensors(o)


def _reached_leaves(outputs):
    """ids of the leaf tensors that the outputs' autograd graph reaches."""
    seen, found = set(), set()
    stack = [t.grad_fn for t in _tensors(outputs) if t.grad_fn is not None]
    for t in _tensors(outputs):
        if t.grad_fn is None and t.requires_grad:
            found.add(id(t))
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        variable = getattr(fn, "variable", None)
        if variable is not None and type(fn).__name__ == "AccumulateGrad":
            found.add(id(variable))
            continue
        for e in getattr(fn, "_edges", ()) or ():
            if e is not None:
                stack.append(e[0])
    return found


class DistributedDataParallel(Module):
    """Data parallelism across processes: wrap the model, and each ``backward()`` leaves
    every replica with the gradient averaged over the process group.

    Call ``torch.distributed.init_process_group`` first. ``module`` is reachable as
    ``.module`` (state_dict keys ``module.*``). ``device_ids``/``output_device`` must be
    None or CPU (there is no GPU backend). ``broadcast_buffers``: copy rank 0's buffers to
    every rank at each forward. ``bucket_cap_mb``: bucket size (default 25).
    ``find_unused_parameters``: allow parameters that the forward does not use.
    ``static_graph``: the set of used parameters is found once, at the first iteration.
    ``gradient_as_bucket_view`` is accepted and has no effect.
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=True, process_group=None, bucket_cap_mb=None,
                 find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, **kwargs):  # fmt: skip
        super().__init__()
        dist = _dist()
        if not dist.is_initialized():
            raise ValueError(
                "DistributedDataParallel needs the default process group: call "
                "torch.distributed.init_process_group first"
            )
        for d in device_ids or ():
            if d not in ("cpu", torch.device("cpu")):
                raise ValueError(
                    f"DistributedDataParallel: device_ids={device_ids}, but this build has only "
                    "the CPU backend; leave device_ids=None"
                )
        self.module = module
        self.process_group = process_group
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.static_graph = static_graph
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.dim = dim
        self.device_ids = None
        self.output_device = None
        self.require_backward_grad_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 2**20)
        self._world = dist.get_world_size(process_group)
        self._root = dist.get_global_rank(process_group, 0) if process_group else 0
        seen, params = set(), []
        for p in module.parameters():
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                params.append(p)
        self._params = params
        self._sync_module_states()
        self._buckets = self._make_buckets(params)
        self._where = {}
        for b, bucket in enumerate(self._buckets):
            for p in bucket.params:
                self._where[id(p)] = b
        self._hooks = [p.register_post_accumulate_grad_hook(self._grad_ready) for p in params]
        self._active = False  # a reduction is expected in the current backward
        self._next = 0  # the next bucket to start, in index order
        self._ready = set()
        self._static_unused = None
        self._used = None  # (mask of parameters used by some rank, its all-reduce)

    # -------------------------------------------------------------- construction

    def _make_buckets(self, params):
        buckets, current, size = [], [], 0
        for p in reversed(params):
            nbytes = p.numel() * p.element_size()
            if current and (p.dtype != current[0].dtype or size + nbytes > self.bucket_bytes_cap):
                buckets.append(_Bucket(current))
                current, size = [], 0
            current.append(p)
            size += nbytes
        if current:
            buckets.append(_Bucket(current))
        return buckets

    def _broadcast_coalesced(self, tensors):
        """Broadcast ``tensors`` from the group's rank 0, one flat buffer per dtype."""
        dist = _dist()
        by_dtype = {}
        for t in tensors:
            by_dtype.setdefault(t.dtype, []).append(t)
        with torch.no_grad():
            for group in by_dtype.values():
                flat = torch.cat([t.detach().reshape(-1) for t in group])
                dist.broadcast(flat, self._root, group=self.process_group)
                offset = 0
                for t in group:
                    n = t.numel()
                    t.copy_(flat[offset : offset + n].reshape(t.shape))
                    offset += n

    def _sync_module_states(self):
        if self._world > 1:
            state = list(self.module.parameters()) + list(self.module.buffers())
            self._broadcast_coalesced([t for t in state if t.numel()])

    # -------------------------------------------------------------- forward

    @contextlib.contextmanager
    def no_sync(self):
        """Inside this context, backward accumulates gradients locally without
        synchronising; the first backward after it averages the accumulated gradients."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def forward(self, *inputs, **kwargs):
        """Broadcast the buffers (``broadcast_buffers``), call the module, and prepare the
        gradient synchronisation of the coming backward."""
        if self._active and self._ready:
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a "
                "new one: some parameters received no gradient. Pass "
                "find_unused_parameters=True to DistributedDataParallel, or make sure every "
                "forward output takes part in computing the loss. Parameters without a "
                "gradient: " + ", ".join(self._missing_names())
            )
        if self.broadcast_buffers and self._world > 1:
            buffers = [b for b in self.module.buffers() if b.numel()]
            if buffers:
                self._broadcast_coalesced(buffers)
        outputs = self.module(*inputs, **kwargs)
        if torch.is_grad_enabled() and self.require_backward_grad_sync and self._world > 1:
            self._prepare(outputs)
        else:
            self._active = False
        return outputs

    def _missing_names(self):
        names = {id(p): n for n, p in self.module.named_parameters()}
        return [names.get(id(p), "?") for p in self._params if id(p) not in self._ready]

    def _prepare(self, outputs):
        """Reset the buckets for the backward of ``outputs``."""
        self._active = True
        self._next = 0
        self._ready = set()
        for bucket in self._buckets:
            bucket.pending = len(bucket.params)
            bucket.work = None
        unused = ()
        if self.find_unused_parameters or self.static_graph:
            if self.static_graph and self._static_unused is not None:
                unused = self._static_unused
            else:
                reached = _reached_leaves(outputs)
                unused = [p for p in self._params if id(p) not in reached]
                if self.static_graph:
                    self._static_unused = unused
        self._used = None
        if self.find_unused_parameters:  # which parameters some rank used: the others keep
            unused_ids = {id(p) for p in unused}  # grad None, as in PyTorch
            mask = torch.tensor([id(p) not in unused_ids for p in self._params], dtype=torch.uint8)
            self._used = (mask, _dist().all_reduce(
                mask, _dist().ReduceOp.MAX, group=self.process_group, async_op=True
            ))  # fmt: skip
        for p in unused:
            self._mark(p)

    # -------------------------------------------------------------- backward

    def _grad_ready(self, param):
        if self._active:
            self._mark(param)

    def _mark(self, param):
        if id(param) in self._ready:
            return
        self._ready.add(id(param))
        bucket = self._buckets[self._where[id(param)]]
        bucket.pending -= 1
        # start every bucket that is ready, in index order (the same order on all ranks)
        while self._next < len(self._buckets) and self._buckets[self._next].pending == 0:
            self._start(self._buckets[self._next])
            self._next += 1
        for b in self._buckets[: self._next]:  # let MPI progress the ones in flight
            if b.work is not None:
                b.work.is_completed()
        if self._next == len(self._buckets):
            self._finish()

    def _start(self, bucket):
        a = bucket.array
        for p, offset in zip(bucket.params, bucket.offsets):
            n = p.numel()
            g = p.grad
            if g is None:
                a[offset : offset + n] = 0
            else:
                a[offset : offset + n] = g.detach().reshape(-1).numpy()
        dist = _dist()
        bucket.work = dist.all_reduce(bucket.flat, group=self.process_group, async_op=True)

    def _finish(self):
        """Wait for every bucket and write the averaged gradients into ``.grad``."""
        self._active = False
        globally_unused = set()
        if self._used is not None:
            mask, work = self._used
            work.wait()
            globally_unused = {id(p) for p, m in zip(self._params, mask.tolist()) if not m}
        with torch.no_grad():
            for bucket in self._buckets:
                bucket.work.wait()
                a = bucket.array
                a /= self._world
                for p, offset in zip(bucket.params, bucket.offsets):
                    n = p.numel()
                    avg = a[offset : offset + n]
                    g = p.grad
                    if g is None and id(p) in globally_unused:
                        continue
                    if g is not None and g.is_contiguous() and not g.requires_grad:
                        g.numpy().reshape(-1)[...] = avg
                    else:
                        p.grad = torch.tensor(avg.copy()).reshape(p.shape)
                bucket.work = None
