"""torch.einsum against np.einsum on random equations: diagonals, sums, outer and batched
products, ellipses and implicit outputs, with one or more operands."""

import hypothesis.strategies as st
import numpy as np
from hypothesis import example, given

import torch
from torch.testing._op_registry import to_numpy

SIZES = {"a": 2, "b": 3, "c": 1, "d": 4, "e": 2}


@st.composite
def equations(draw):
    n_ops = draw(st.integers(1, 3))
    letters = st.sampled_from(sorted(SIZES))
    terms = [draw(st.lists(letters, min_size=0, max_size=4)) for _ in range(n_ops)]
    ellipsis = draw(st.booleans())
    ell_dims = draw(st.lists(st.integers(1, 3), min_size=0, max_size=2)) if ellipsis else []
    used = sorted({x for term in terms for x in term})
    explicit = draw(st.booleans())
    lhs = ",".join(("..." if ellipsis else "") + "".join(term) for term in terms)
    if explicit:
        out = draw(st.lists(st.sampled_from(used), unique=True)) if used else []
        eq = lhs + "->" + ("..." if ellipsis else "") + "".join(out)
    else:
        eq = lhs
    shapes = [tuple(ell_dims) + tuple(SIZES[x] for x in term) for term in terms]
    return eq, shapes


@given(equations(), st.integers(0, 2**16))
@example(("c,cc", [(1,), (1, 1)]), 0)  # diagonal views whose matrices BLAS cannot read
@example(("a,aa,a", [(2,), (2, 2), (2,)]), 0)
def test_einsum_matches_numpy(spec, seed):
    eq, shapes = spec
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(-1, 1, shape) for shape in shapes]
    expected = np.einsum(eq, *arrays)
    got = torch.einsum(eq, *[torch.tensor(a) for a in arrays])
    assert tuple(got.shape) == np.shape(expected), eq
    np.testing.assert_allclose(to_numpy(got), expected, rtol=1e-10, atol=1e-12, err_msg=eq)
