"""vmap as a loop: slice, call, stack.

There are no batched tensors here. ``vmap(func)(*args)`` checks ``in_dims`` against the
arguments, then for each index ``i`` of the mapped dimension calls ``func`` on the
``i``-th slices (``x.select(in_dim, i)``, views of the inputs; arguments with in_dim None
are passed whole) and finally stacks each output along its ``out_dims`` entry with
:func:`torch.stack`. The results are what a batched implementation returns, at the cost
of one Python call of ``func`` per batch element. Everything ``func`` does is recorded by
autograd as usual, so vmap composes with the other transforms in both orders.
"""

import functools

import torch
from torch.func._pytree import broadcast_prefix, tree_flatten, tree_unflatten
from torch.func._transforms import _check_randomness

Tensor = torch.Tensor


def _name(func):
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return getattr(func, "__name__", repr(func))


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` mapped over a dimension of its inputs (see the module docstring: a loop).

    ``in_dims``: the mapped dimension of each positional argument: an int (every tensor of
    every argument), None (not mapped: passed to every call whole), or a tuple with one
    entry per argument, each an int, None or a nested tuple/list/dict matching that
    argument's structure. Keyword arguments are never mapped. ``out_dims``: where the mapped
    dimension goes in each output (an int, None for an output that does not vary, or a
    structure matching the outputs). ``randomness``: 'error' (a call that draws random
    numbers raises), 'different' (each element draws its own), 'same' (each element sees
    the same random numbers). ``chunk_size`` is validated; the loop runs one element at a
    time whatever it is."""
    _check_randomness(randomness)
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _vmap_call(func, in_dims, out_dims, randomness, args, kwargs)

    return wrapped


def _in_prefix(func, in_dims):
    return f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>)"


def _flat_in_dims(func, in_dims, args):
    """(flat args, their spec, flat in_dims, batch size)."""
    if not args:
        raise ValueError(
            f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to add inputs, or "
            "you are trying to vmap over a function with no inputs. The latter is unsupported."
        )
    where = _in_prefix(func, in_dims)
    if not (in_dims is None or isinstance(in_dims, (int, tuple))):
        raise ValueError(
            f"{where}: expected `in_dims` to be int or a (potentially nested) tuple matching "
            f"the structure of inputs, got: {type(in_dims)}."
        )
    flat_args, spec = tree_flatten(args)
    flat_dims = broadcast_prefix(in_dims, spec)
    if flat_dims is None:
        raise ValueError(
            f"{where}: in_dims is not compatible with the structure of `inputs`. in_dims has "
            f"structure {tree_flatten(in_dims)[1]} but inputs has structure {spec}."
        )
    sizes = []
    for arg, d in zip(flat_args, flat_dims):
        if d is None:
            continue
        if not isinstance(d, int) or isinstance(d, bool):
            raise ValueError(
                f"{where}: Got in_dim={d} for an input but in_dim must be either an integer "
                "dimension or None."
            )
        if not isinstance(arg, Tensor):
            raise ValueError(
                f"{where}: Got in_dim={d} for an input but the input is of type {type(arg)}. "
                "We cannot vmap over non-Tensor arguments, please use None as the respective "
                "in_dim"
            )
        n = arg.dim()
        if not -n <= d < n:
            raise ValueError(
                f"{where}: Got in_dim={d} for some input, but that input is a Tensor of "
                f"dimensionality {n} so expected in_dim to satisfy -{n} <= in_dim < {n}."
            )
        sizes.append(arg.shape[d])
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got "
            f"sizes {sizes} for the mapped dimension"
        )
    return flat_args, spec, flat_dims, sizes[0]


def _flat_out_dims(func, out_dims, out_leaves, out_spec):
    def bad_type():
        return ValueError(
            f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None or "
            "a python collection of ints representing where in the outputs the vmapped "
            "dimension should appear."
        )

    dims_leaves = tree_flatten(out_dims)[0]
    if any(d is not None and (not isinstance(d, int) or isinstance(d, bool)) for d in dims_leaves):
        raise bad_type()
    if out_spec.is_leaf() and isinstance(out_dims, tuple) and len(out_dims) == 1:
        return list(out_dims)  # a single output with out_dims=(d,)
    flat = broadcast_prefix(out_dims, out_spec)
    if flat is None:
        raise ValueError(
            f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not "
            "compatible with the structure of `outputs`. out_dims has structure "
            f"{tree_flatten(out_dims)[1]} but outputs has structure {out_spec}."
        )
    return flat


def _random_error():
    return RuntimeError(
        "vmap: called random operation while in randomness error mode. Please either use the "
        "'same' or 'different' randomness flags on vmap or perform the randomness operation "
        "out of vmap"
    )


def _vmap_call(func, in_dims, out_dims, randomness, args, kwargs):
    flat_args, spec, flat_dims, size = _flat_in_dims(func, in_dims, args)
    rng = torch.get_rng_state() if randomness != "different" else None

    def call(sliced):
        if randomness == "same":
            torch.set_rng_state(rng)
        out = func(*tree_unflatten(sliced, spec), **kwargs)
        if randomness == "error" and not torch.equal(torch.get_rng_state(), rng):
            raise _random_error()
        return out

    if size == 0:
        # Nothing to loop over: one call on zeros of an element's shape tells the outputs'
        # shapes, and the results are empty along the mapped dimension.
        probe = [
            a if d is None else torch.zeros(_drop(a.shape, d), dtype=a.dtype, device=a.device)
            for a, d in zip(flat_args, flat_dims)
        ]
        outs = [tree_flatten(call(probe))]
    else:
        outs = []
        for i in range(size):
            sliced = [a if d is None else a.select(d, i) for a, d in zip(flat_args, flat_dims)]
            outs.append(tree_flatten(call(sliced)))

    leaves0, out_spec = outs[0]
    for _, s in outs[1:]:
        if s != out_spec:
            raise ValueError(
                f"vmap({_name(func)}, ...): `{_name(func)}` returned outputs of different "
                f"structures for different elements of the batch ({out_spec} and {s}); vmap "
                "needs one structure"
            )
    flat_out_dims = _flat_out_dims(func, out_dims, leaves0, out_spec)
    results = []
    for j, od in enumerate(flat_out_dims):
        values = [leaves[j] for leaves, _ in outs]
        first = values[0]
        if od is None:
            if isinstance(first, Tensor) and not all(_same(first, v) for v in values[1:]):
                raise ValueError(
                    f"vmap({_name(func)}, ...): `{_name(func)}` can not return a BatchedTensor "
                    "when out_dim is None"
                )
            results.append(first)
            continue
        for v in values:
            if not isinstance(v, Tensor):
                raise ValueError(
                    f"vmap({_name(func)}, ...): `{_name(func)}` must only return Tensors, got "
                    f"type {type(v)}. Did you mean to set out_dims= to None for output?"
                )
        n = first.dim()
        if not -(n + 1) <= od <= n:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-(n + 1)}, {n}], but "
                f"got {od})"
            )
        if size == 0:
            shape = list(first.shape)
            shape.insert(od % (n + 1), 0)
            results.append(torch.empty(shape, dtype=first.dtype, device=first.device))
        else:
            results.append(torch.stack(values, od))
    return tree_unflatten(results, out_spec)


def _drop(shape, d):
    shape = list(shape)
    del shape[d]
    return tuple(shape)


def _same(a, b):
    return (
        isinstance(b, Tensor)
        and a.shape == b.shape
        and a.dtype == b.dtype
        and (a is b or torch.equal(a, b))
    )
