"""grad, grad_and_value, vjp, jvp, jacrev, jacfwd and hessian, on the tape.

Each transform call is a *level*: it replaces the inputs it differentiates by fresh leaves
(or, when an input already belongs to a graph that is being recorded, by a view of it, so
that derivatives still flow to the outer graph), runs ``func`` with grad mode on, and
differentiates with :func:`torch.autograd.grad`, always with ``create_graph=True``. The
results are then *unwrapped*: a result that depends on nothing but this level's own leaves
is detached (it carries no graph and does not require grad); one that also depends on a
tensor from outside (an outer transform's input, a tensor the caller made with
``requires_grad=True``, a closed-over parameter) keeps its graph, so transforms nest
(``grad(grad(f))``, ``jacfwd(jacrev(f))``) and compose with ``torch.autograd``.
"""

import functools

import torch
from torch.autograd import grad as _autograd_grad
from torch.autograd.graph import AccumulateGrad
from torch.autograd.graph import edge as _edge
from torch.func._pytree import tree_flatten, tree_map, tree_unflatten

Tensor = torch.Tensor

_RANDOMNESS = ("error", "different", "same")


def _check_randomness(randomness):
    if randomness not in _RANDOMNESS:
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. "
            f"Got {randomness}"
        )


def _validate_argnums(argnums, n_args):
    """argnums normalized to non-negative ints (an int or a tuple of them)."""

    def one(a):
        if not isinstance(a, int):
            raise RuntimeError(f"argnum must be int, got: {type(a)}")
        if not -n_args <= a < n_args:
            raise RuntimeError(f"Got argnum={a}, but only {n_args} positional inputs")
        return a % n_args

    if isinstance(argnums, int):
        return one(argnums)
    if isinstance(argnums, tuple):
        if not argnums:
            raise RuntimeError("argnums must be non-empty")
        nums = tuple(one(a) for a in argnums)
        if len(set(nums)) != len(nums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        return nums
    raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")


def _check_tensors(leaves, message):
    for x in leaves:
        if not isinstance(x, Tensor):
            raise RuntimeError(f"{message}, got unsupported type {type(x)}")


class _Level:
    """One call of a transform: the leaves it made, and the unwrapping of its results."""

    def __init__(self):
        self.grad_enabled = torch.is_grad_enabled()
        self._own = []  # kept alive so that their ids stay theirs
        self._own_ids = set()

    def own(self, t):
        self._own.append(t)
        self._own_ids.add(id(t))
        return t

    def lift(self, x):
        """The differentiable stand-in for input x."""
        if not isinstance(x, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
        if self.grad_enabled and x.requires_grad:
            with torch.enable_grad():
                return x.view_as(x)  # stays attached to the outer graph
        return self.own(x.detach().requires_grad_(True))

    def lift_args(self, args, argnums):
        """(args with the differentiated ones lifted, flat lifted leaves, [(start, count,
        spec)] per differentiated argument)."""
        args = list(args)
        inputs, specs = [], []
        for n in (argnums,) if isinstance(argnums, int) else argnums:
            leaves, spec = tree_flatten(args[n])
            lifted = [self.lift(x) for x in leaves]
            args[n] = tree_unflatten(lifted, spec)
            specs.append((len(inputs), len(lifted), spec))
            inputs.extend(lifted)
        return args, inputs, specs

    def _reaches_outside(self, t, memo):
        """Whether t's history reaches a leaf that requires grad and is not this level's."""
        e = _edge(t)
        if e is None:
            return False
        root = e[0]
        stack = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            key = id(node)
            if not expanded and key in memo:
                continue
            if isinstance(node, AccumulateGrad):
                var = node.variable
                memo[key] = var is not None and id(var) not in self._own_ids
                continue
            children = [
                e[0] for e in getattr(node, "_edges", ()) if e is not None and e[0] is not None
            ]
            if expanded:
                memo[key] = any(memo.get(id(c), False) for c in children)
            else:
                memo[key] = False  # in progress (the graph has no cycles)
                stack.append((node, True))
                stack.extend((c, False) for c in children if id(c) not in memo)
        return memo[id(root)]

    def unwrap(self, tree):
        """tree with its tensors detached, except those that depend on outside tensors."""
        memo = {}

        def one(t):
            if not isinstance(t, Tensor) or not t.requires_grad:
                return t
            if self.grad_enabled and self._reaches_outside(t, memo):
                return t
            return t.detach()

        return tree_map(one, tree)


def _regroup(flat, specs, argnums):
    """Per-argument pytrees from the flat per-leaf values (a tuple for tuple argnums)."""
    trees = tuple(tree_unflatten(flat[s : s + n], spec) for s, n, spec in specs)
    return trees[0] if isinstance(argnums, int) else trees


def _split_aux(out, has_aux, name):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(
            f"{name}: output of function f should be a tuple: (output, aux) if has_aux is True"
        )
    _check_tensors(tree_flatten(out[1])[0], "Expected tensors")
    return out


def _call(func, args, kwargs):
    with torch.enable_grad():
        return func(*args, **kwargs)


def _vjp_flat(outputs, inputs, cotangents):
    """sum_i cotangents[i]^T d outputs[i] / d inputs, per input (zeros where unused), as a
    differentiable graph."""
    pairs = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
    grads = (None,) * len(inputs)
    if pairs and inputs:
        outs, cots = zip(*pairs)
        with torch.enable_grad():
            grads = _autograd_grad(
                outs, inputs, cots, retain_graph=True, create_graph=True, allow_unused=True
            )
    return [torch.zeros_like(x) if g is None else g for g, x in zip(grads, inputs)]


# ---------------------------------------------------------------------------- grad


def grad_and_value(func, argnums=0, has_aux=False):
    """Like :func:`grad`, but the returned function gives ``(gradient, value)`` (with
    ``has_aux``: ``(gradient, (value, aux))``)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        name = "grad_and_value(f)(*args)"
        nums = _validate_argnums(argnums, len(args))
        level = _Level()
        args, inputs, specs = level.lift_args(args, nums)
        out, aux = _split_aux(_call(func, args, kwargs), has_aux, name)
        if not isinstance(out, Tensor):
            raise RuntimeError(f"{name}: Expected f(*args) to return a Tensor, got {type(out)}")
        if out.dim() != 0:
            raise RuntimeError(
                f"{name}: Expected f(*args) to return a scalar Tensor, got tensor with "
                f"{out.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
            )
        grads = _regroup(_vjp_flat([out], inputs, [torch.ones_like(out)]), specs, nums)
        return level.unwrap((grads, (out, aux) if has_aux else out))

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of ``func`` with respect to its positional argument(s) ``argnums``.

    ``func`` must return a scalar tensor (with ``has_aux=True``: a pair ``(scalar, aux)``,
    and the new function returns ``(gradient, aux)``). The gradient has the structure of
    the differentiated argument (a tensor, or a tuple/list/dict of tensors); for a tuple
    ``argnums``, a tuple of those. Inputs need not require grad."""
    value_fn = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        grads, value = value_fn(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    return wrapper


# ---------------------------------------------------------------------------- vjp / jvp


def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` gives, for each primal, the
    vector-Jacobian product (a tuple with one pytree per primal). ``cotangents`` has the
    structure and shapes of ``func``'s output. ``vjp_fn`` may be called many times. With
    ``has_aux``, ``func`` returns ``(output, aux)`` and vjp returns
    ``(output, vjp_fn, aux)``."""
    name = "vjp(f, *primals)"
    level = _Level()
    leaves, spec = tree_flatten(primals)
    inputs = [level.lift(x) for x in leaves]
    out, aux = _split_aux(_call(func, tree_unflatten(inputs, spec), {}), has_aux, name)
    out_leaves, out_spec = tree_flatten(out)
    _check_tensors(out_leaves, f"{name}: expected f(*primals) to return only tensors")

    def vjp_fn(cotangents, *, retain_graph=True, create_graph=None):
        cots, cot_spec = tree_flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure "
                f"of outputs to the function. cotangents: {cot_spec}, primal output: {out_spec}"
            )
        _check_tensors(cots, "Expected tensors")
        for i, (c, o) in enumerate(zip(cots, out_leaves)):
            if c.shape != o.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {c.shape} and "
                    f"output[{i}] has a shape of {o.shape}."
                )
        return level.unwrap(tree_unflatten(_vjp_flat(out_leaves, inputs, cots), spec))

    if has_aux:
        return level.unwrap(out), vjp_fn, level.unwrap(aux)
    return level.unwrap(out), vjp_fn


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J @ tangents)``: the Jacobian-vector product of ``func`` at
    ``primals`` (a tuple) along ``tangents`` (the same structure and shapes). With
    ``has_aux``, also the aux output. Computed by the double-vjp trick (``u -> J^T u`` is
    linear; its vjp with ``tangents`` is ``J tangents``), so it costs two backward passes
    instead of one forward-mode pass. ``strict`` is accepted and ignored."""
    name = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(
            f"{name}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals)."
        )
    leaves, spec = tree_flatten(primals)
    tans, tan_spec = tree_flatten(tangents)
    if tan_spec != spec:
        raise RuntimeError(
            f"{name}: Expected primals and tangents to have the same python structure. For "
            "example, if primals is a tuple of 3 tensors, tangents also must be. Got primals "
            f"with structure {spec} and tangents with structure {tan_spec}"
        )
    if not leaves:
        raise RuntimeError(f"{name}: Expected primals to contain at least one Tensor.")
    level = _Level()
    inputs = [level.lift(x) for x in leaves]
    _check_tensors(tans, "Expected tensors")
    for x, t in zip(leaves, tans):
        if x.shape != t.shape:
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the "
                "original Tensor, this is not supported. Tensor is of size "
                f"{list(x.shape)} while the given forward gradient is of size {list(t.shape)}."
            )
    out, aux = _split_aux(_call(func, tree_unflatten(inputs, spec), {}), has_aux, name)
    out_leaves, out_spec = tree_flatten(out)
    _check_tensors(out_leaves, f"{name}: expected f(*primals) to return only tensors")
    jvps = [None] * len(out_leaves)
    live = [i for i, o in enumerate(out_leaves) if o.requires_grad]
    if live:
        dummies = [level.own(torch.zeros_like(out_leaves[i]).requires_grad_(True)) for i in live]
        with torch.enable_grad():
            vjps = _autograd_grad(
                [out_leaves[i] for i in live],
                inputs,
                dummies,
                retain_graph=True,
                create_graph=True,
                allow_unused=True,
            )
            pairs = [
                (g, t.to(g.dtype)) for g, t in zip(vjps, tans) if g is not None and g.requires_grad
            ]
            if pairs:
                gs, ts = zip(*pairs)
                found = _autograd_grad(
                    gs, dummies, ts, retain_graph=True, create_graph=True, allow_unused=True
                )
                for i, j in zip(live, found):
                    jvps[i] = j
    jvps = [torch.zeros_like(o) if j is None else j for j, o in zip(jvps, out_leaves)]
    result = (tree_unflatten(out_leaves, out_spec), tree_unflatten(jvps, out_spec))
    if has_aux:
        result = (*result, aux)
    return level.unwrap(result)


# ---------------------------------------------------------------------------- jacobians


def _jacobian(func, argnums, has_aux, name, args, kwargs):
    nums = _validate_argnums(argnums, len(args))
    level = _Level()
    args, inputs, specs = level.lift_args(args, nums)
    out, aux = _split_aux(_call(func, args, kwargs), has_aux, name)
    out_leaves, out_spec = tree_flatten(out)
    _check_tensors(out_leaves, f"{name}: expected f(*primals) to return only tensors")
    per_output = []
    for o in out_leaves:
        rows = [[] for _ in inputs]
        if o.requires_grad:
            flat = o.reshape(-1)
            for k in range(flat.numel()):  # one backward pass per output element
                seed = torch.zeros_like(flat)
                seed[k] = 1
                for row, g in zip(rows, _vjp_flat([flat], inputs, [seed])):
                    row.append(g)
        jacs = [
            torch.stack(row).reshape(tuple(o.shape) + tuple(x.shape))
            if row
            else torch.zeros(tuple(o.shape) + tuple(x.shape), dtype=x.dtype, device=x.device)
            for row, x in zip(rows, inputs)
        ]
        per_output.append(_regroup(jacs, specs, nums))
    jac = tree_unflatten(per_output, out_spec)
    return level.unwrap((jac, aux) if has_aux else jac)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of ``func`` with respect to argument(s) ``argnums``, by reverse mode: one
    backward pass per output element. For an output of shape ``O`` and an input of shape
    ``I``, a tensor of shape ``O + I``; nested as the outputs, then as the argument(s)
    (a tuple for a tuple ``argnums``). ``chunk_size`` is accepted (and validated); it does
    not change the computation."""
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return _jacobian(func, argnums, has_aux, "vjp(f, *primals)", args, kwargs)

    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func`` with respect to argument(s) ``argnums``, laid out as
    :func:`jacrev`'s. There is no forward-mode AD here: it is computed by reverse mode too
    (same values, one backward pass per output element, so it does not get cheaper when
    there are fewer inputs than outputs). ``randomness`` is validated only."""
    _check_randomness(randomness)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return _jacobian(func, argnums, has_aux, "jvp(f, primals, tangents)", args, kwargs)

    return wrapper


def hessian(func, argnums=0):
    """The Hessian of a scalar-valued ``func`` with respect to argument(s) ``argnums``:
    ``jacfwd(jacrev(func, argnums), argnums)``. For an input of shape ``I``, shape
    ``I + I``."""
    return jacfwd(jacrev(func, argnums), argnums)
