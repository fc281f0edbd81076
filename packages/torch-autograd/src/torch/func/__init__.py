"""torch.func: composable function transforms (the torch-autograd wheel).

- :func:`grad`, :func:`grad_and_value`: the gradient of a scalar function with respect to
  positional argument(s) ``argnums`` (each a tensor or a tuple/list/dict of tensors);
- :func:`vjp`, :func:`jvp`: vector-Jacobian and Jacobian-vector products;
- :func:`jacrev`, :func:`jacfwd`, :func:`hessian`: full Jacobians and Hessians;
- :func:`vmap`: ``func`` mapped over a dimension of its inputs;
- :func:`functional_call`, :func:`stack_module_state`: a module called with other
  parameters and buffers, and the stacked state of an ensemble of modules.

How it is done here. There are no functorch levels or batched tensors; everything runs on
the tape of :mod:`torch.autograd`:

- The derivative transforms replace the inputs they differentiate by fresh leaves, run
  ``func`` with grad mode on and call :func:`torch.autograd.grad` with
  ``create_graph=True``. Results that depend only on those leaves are returned detached
  (plain tensors that do not require grad, whatever the inputs' ``requires_grad``); results
  that also depend on tensors from outside the transform (an outer transform's inputs, or
  tensors that require grad in the caller's own autograd graph) keep their graph. That is
  what makes ``grad(grad(f))``, ``jacfwd(jacrev(f))`` and ``hessian`` work, and what lets a
  transform's result be backpropagated with ``.backward()``.
- ``jvp`` uses the double-vjp trick (two backward passes); ``jacfwd`` is computed by reverse
  mode exactly as ``jacrev`` (one backward pass per output element): same values and
  layout, not forward-mode cost.
- **vmap is a loop**: it slices the inputs along ``in_dims``, calls ``func`` once per batch
  element and stacks each output along ``out_dims`` with :func:`torch.stack`. The results
  (values, shapes, errors for bad ``in_dims``/``out_dims`` or batch sizes) are those of a
  batched implementation, but the cost is ``batch_size`` Python calls of ``func``;
  ``chunk_size`` changes nothing. ``randomness='error'`` is detected after the fact (the
  CPU generator's state changed during a call); ``'same'`` restores the generator's state
  before each call. An output with ``out_dims=None`` must be equal across the batch.
"""

from torch.func._functional_call import functional_call, stack_module_state
from torch.func._transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from torch.func._vmap import vmap

__all__ = [
    "functional_call",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "stack_module_state",
    "vjp",
    "vmap",
]
