"""Sizes, strides, offsets, counts and scalars that overflow are refused with a RuntimeError
(issue 13): every view is bounds-checked with overflow-checked arithmetic, reductions write
the dtype they were asked for, and values that do not fit a dtype raise instead of wrapping."""

import numpy as np
import pytest

import torch

BIG = [2**31, 2**61, 2**62, 2**63 - 1]


@pytest.mark.parametrize("stride", BIG)
def test_as_strided_extent_overflow_is_refused(stride):
    with pytest.raises(RuntimeError, match="as_strided.*outside its storage"):
        torch.zeros(4).as_strided((3,), (stride,))


def test_as_strided_within_storage_still_works():
    x = torch.arange(12.0)
    v = x.as_strided((3, 2), (4, 1), 1)
    np.testing.assert_array_equal(v.numpy(), np.arange(12.0)[[[1, 2], [5, 6], [9, 10]]])
    with pytest.raises(RuntimeError, match="outside its storage of 12 elements"):
        x.as_strided((3, 2), (4, 1), 7)  # last element 7 + 8 + 1 = 16


def test_as_strided_sum_of_spans_overflow_is_refused():
    # each span fits int64, their sum does not
    with pytest.raises(RuntimeError, match="as_strided"):
        torch.zeros(4).as_strided((2, 2), (2**62, 2**62))
    with pytest.raises(RuntimeError, match="as_strided"):
        torch.zeros(4).as_strided((2, 2), (1000, 2**62 - 1000))


def test_set_checks_the_layout_against_the_storage():
    src = torch.zeros(4)
    dst = torch.empty(0)
    with pytest.raises(RuntimeError, match="outside its storage"):
        dst.set_(src.untyped_storage(), 0, (2, 2), (1000, 2**62 - 1000))
    with pytest.raises(RuntimeError, match="outside its storage"):
        dst.set_(src.untyped_storage(), 2**62, (1,), (1,))
    dst.set_(src.untyped_storage(), 1, (3,), (1,))
    assert dst.shape == (3,)


def test_narrow_length_overflow_is_refused():
    with pytest.raises(RuntimeError, match="narrow"):
        torch.zeros(8).narrow(0, 4, 2**63 - 1)
    np.testing.assert_array_equal(torch.arange(8).narrow(0, 4, 4).numpy(), [4, 5, 6, 7])


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.ones(1).expand(2**62, 4),
        lambda: torch.ones(1).expand(2**32, 2**32),
        lambda: torch.zeros(0).view(2**62, 4, 0),
        lambda: torch.zeros(0).reshape(2**62, 4, 0),
        lambda: torch.zeros(0).view(-1, 2**62, 4),
        lambda: torch.ones(1, 1).expand(2**40, 2**40).unsqueeze(0).expand(2**40, -1, -1),
    ],
)
def test_element_count_overflow_is_refused(make):
    with pytest.raises(RuntimeError, match="int64|invalid"):
        make()


def test_expand_to_a_negative_size_is_refused():
    with pytest.raises(RuntimeError):
        torch.ones(1).expand(-5)


def test_slice_with_a_huge_step():
    x = torch.arange(10)
    assert x[:: 2**63 - 1].tolist() == [0]
    assert x[3 :: 2**62].tolist() == [3]
    assert torch.arange(20).reshape(2, 10)[:: 2**62].tolist() == [list(range(10))]


@pytest.mark.parametrize("dtype", [torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool])
@pytest.mark.parametrize("op", ["sum", "prod"])
def test_reductions_write_the_requested_dtype(op, dtype):
    np_dtype = {torch.int32: np.int32, torch.int16: np.int16, torch.int8: np.int8,
                torch.uint8: np.uint8, torch.bool: np.bool_}[dtype]  # fmt: skip
    values = np.arange(1, 21, dtype=np.float32).reshape(5, 4)
    x = torch.tensor(values)
    for _ in range(50):  # the old bug wrote 8-byte results into 1-byte buffers: a heap overrun
        got = getattr(x, op)(0, dtype=dtype)
    cast = values.astype(np_dtype)
    want = cast.any(0) if dtype == torch.bool and op == "sum" else None
    if dtype == torch.bool and op == "prod":
        want = cast.all(0)
    if want is None:
        want = getattr(np, op)(cast.astype(np.int64), 0).astype(np_dtype)  # modular, like C
    assert got.dtype == dtype
    np.testing.assert_array_equal(got.numpy(), want)
    assert torch.ones(5, 4).sum(0, dtype=torch.int8).tolist() == [5, 5, 5, 5]
    assert torch.ones(5, 4).sum(dtype=torch.int16).item() == 20


@pytest.mark.parametrize("rows,cols", [(0, 0), (1, 1), (3, 5), (5, 3), (4, 4), (7, 2)])
@pytest.mark.parametrize("offset", [-(2**63), -10, -3, -1, 0, 1, 2, 6, 2**63 - 1])
def test_tril_and_triu_indices_match_numpy(rows, cols, offset):
    k = int(np.clip(offset, -100, 100))
    np.testing.assert_array_equal(
        torch.tril_indices(rows, cols, offset).numpy(), np.array(np.tril_indices(rows, k, cols))
    )
    np.testing.assert_array_equal(
        torch.triu_indices(rows, cols, offset).numpy(), np.array(np.triu_indices(rows, k, cols))
    )


def test_tril_indices_too_large_is_refused_before_allocating():
    with pytest.raises(RuntimeError, match="too many"):
        torch.tril_indices(2**31, 2**31)
    with pytest.raises(RuntimeError, match="too many"):
        torch.triu_indices(2**62, 2**62, 5)
    # huge but empty: no loop over 2^62 rows either
    assert torch.tril_indices(2**62, 3, -(2**62)).shape == (2, 0)
    assert torch.triu_indices(3, 2**62, 2**62).shape == (2, 0)


def test_failed_allocation_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="can't allocate memory"):
        torch.empty(2**47)


@pytest.mark.parametrize(
    "dtype,bad,good",
    [
        (torch.int16, 2**40, -(2**15)),
        (torch.int8, 128, -128),
        (torch.uint8, 256, -255),  # unsigned types take negatives down to -max (they wrap)
        (torch.uint8, -256, 255),
        (torch.int32, float("nan"), 2.5),
        (torch.int64, float("inf"), -(2**63)),
        (torch.float32, 1e300, float("inf")),
    ],
)
def test_scalars_that_overflow_the_dtype_raise(dtype, bad, good):
    mask = torch.tensor([True, False, True])
    for write in (
        lambda t, v: t.fill_(v),
        lambda t, v: t.masked_fill_(mask, v),
        lambda t, v: t.__setitem__(0, v),
        lambda t, v: t.__setitem__(mask, v),
        lambda t, v: t.__setitem__(torch.tensor([0, 2]), v),
        lambda t, v: t.index_fill_(0, torch.tensor([1]), v),
        lambda t, v: torch.full((3,), v, dtype=dtype),
    ):
        t = torch.zeros(3, dtype=dtype)
        with pytest.raises(RuntimeError, match="without overflow"):
            write(t, bad)
        assert t.tolist() == [0, 0, 0]  # nothing was written
        write(t, good)
    assert torch.zeros(2, dtype=torch.uint8).fill_(-1).tolist() == [255, 255]


def test_tensor_data_that_overflows_an_integer_dtype_raises():
    with pytest.raises(RuntimeError, match="without overflow"):
        torch.tensor([1, 300], dtype=torch.uint8)
    with pytest.raises(RuntimeError, match="without overflow"):
        torch.tensor([float("nan")], dtype=torch.int32)
    assert torch.tensor([1e300]).tolist() == [float("inf")]  # floats round to infinity


@pytest.mark.parametrize(
    "call",
    [
        lambda x: x[2**64],
        lambda x: x.as_strided((1,), (1,), 2**64),
        lambda x: x.size(2**64),
        lambda x: x.sum(2**64),
        lambda x: x.narrow(0, 0, 2**64),
        lambda x: x.select(0, -(2**70)),
        lambda x: x.unsqueeze(2**64),
        lambda x: x.transpose(0, 2**64),
        lambda x: x.topk(2**64),
        lambda x: torch.tril_indices(2**64, 2),
    ],
)
def test_int_arguments_beyond_int64_raise_value_error(call):
    # PyTorch's family for a single int argument; a clear message, not a pybind11 cast error
    with pytest.raises(ValueError, match="overflows int64"):
        call(torch.zeros(4))


@pytest.mark.parametrize(
    "call",
    [lambda x: x.view(2**64), lambda x: x.expand(2**64), lambda x: torch.zeros(2, 2**64)],
)
def test_sizes_beyond_int64_raise_type_error(call):
    with pytest.raises(TypeError, match="overflows int64"):
        call(torch.zeros(4))


def test_empty_tensors_may_have_huge_dims():
    assert torch.empty((2**60, 0)).shape == (2**60, 0)
    assert torch.empty((0, 2**60, 2**60)).numel() == 0
    with pytest.raises(RuntimeError, match="int64"):
        torch.empty((2**62, 4, 0))


@pytest.mark.parametrize(
    "call",
    [
        lambda F: F.fold(torch.ones(2, 12, 9), (4, 4), kernel_size=2**62),  # was SIGFPE
        lambda F: F.unfold(torch.ones(1, 1, 4, 4), 2, dilation=2**62),
        lambda F: F.conv1d(torch.ones(1, 1, 5), torch.ones(1, 1, 2), dilation=2**62),
        lambda F: F.conv1d(torch.ones(1, 1, 5), torch.ones(1, 1, 2), padding=2**62),
        lambda F: F.conv_transpose1d(torch.ones(1, 1, 5), torch.ones(1, 1, 2), stride=2**62),
        lambda F: F.max_pool1d(torch.ones(1, 1, 5), 2**62),
    ],
)
def test_convolution_and_pooling_arithmetic_cannot_overflow(call):
    F = pytest.importorskip("torch.nn.functional")
    with pytest.raises(RuntimeError):
        call(F)


def test_writes_into_an_expanded_tensor_are_refused():
    for write in (
        lambda t: t.copy_(torch.ones(3)),
        lambda t: t.add_(1),
        lambda t: torch.add(torch.ones(3), 1, out=t),
    ):
        with pytest.raises(RuntimeError, match="single memory location"):
            write(torch.zeros(1).expand(3))
    assert torch.zeros(1).expand(3).fill_(1).tolist() == [1.0, 1.0, 1.0]  # one value: fine


def test_subtraction_with_a_bool_tensor_is_refused():
    for a, b in [(torch.ones(2, dtype=torch.bool), torch.ones(2)), (torch.ones(2), True)]:
        with pytest.raises(RuntimeError, match="bool"):
            a - b


# ---------------------------------------------------------------- op fuzzer findings


@pytest.mark.parametrize("op", [torch.linalg.eigvals, torch.linalg.eig])
def test_eig_refuses_non_finite_input(op):
    # LAPACK's geev corrupted the heap on these (PyTorch 2.13 crashes too)
    for bad in (float("inf"), float("nan")):
        a = torch.tensor([[0.5, -bad], [-bad, 0.5]], dtype=torch.float64)
        with pytest.raises(RuntimeError, match="NaN or infinity"):
            op(a)
    w = torch.linalg.eigvals(torch.tensor([[2.0, 0.0], [0.0, 3.0]], dtype=torch.float64))
    assert w.dtype == torch.complex128  # always complex, as in PyTorch
    assert sorted(w.real.tolist()) == [2.0, 3.0] and w.imag.tolist() == [0.0, 0.0]


def test_lstsq_refuses_non_finite_input():
    with pytest.raises(RuntimeError, match="NaN or infinity"):  # gelsd spun on these
        torch.linalg.lstsq(torch.tensor([[-float("inf"), 1.0], [1.0, 2.0]]), torch.ones(2, 1))


@pytest.mark.parametrize(
    "call",
    [
        lambda: torch.zeros(5).tensor_split(2**63 - 1),
        lambda: torch.zeros(0).chunk(2**32),
        lambda: torch.zeros(1).expand(2**40).split(1),
    ],
)
def test_huge_piece_counts_are_refused_at_once(call):
    with pytest.raises(RuntimeError, match="views"):
        call()


def test_small_piece_counts_still_work():
    assert len(torch.zeros(0).chunk(5)) == 5
    assert [p.numel() for p in torch.arange(5).tensor_split(8)] == [1, 1, 1, 1, 1, 0, 0, 0]


@pytest.mark.parametrize("diagonal", [2**63 - 1, -(2**63), 2**40, -(2**40)])
def test_tril_triu_with_huge_diagonals_match_numpy(diagonal):
    a = np.arange(1.0, 13.0).reshape(3, 4)
    k = int(np.clip(diagonal, -10, 10))
    np.testing.assert_array_equal(torch.tensor(a).tril(diagonal).numpy(), np.tril(a, k))
    np.testing.assert_array_equal(torch.tensor(a).triu(diagonal).numpy(), np.triu(a, k))
    t = torch.tensor(a)
    t.tril_(diagonal)
    np.testing.assert_array_equal(t.numpy(), np.tril(a, k))


def test_set_with_a_tensor_source_uses_the_given_layout():
    t = torch.zeros(1).set_(torch.arange(6.0), 1, (2, 2), (2, 1))
    assert t.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert torch.zeros(1).set_(torch.arange(3.0)).tolist() == [0.0, 1.0, 2.0]


def test_int_of_a_float_tensor_is_exact_or_raises_like_int():
    assert int(torch.tensor(3e38)) == int(np.float32(3e38))
    assert int(torch.tensor(-2.7, dtype=torch.float64)) == -2
    with pytest.raises(ValueError):
        int(torch.tensor(float("nan")))
    with pytest.raises(OverflowError):
        int(torch.tensor(float("inf")))


def test_missing_kernels_raise_not_implemented_error():
    with pytest.raises(NotImplementedError, match="ceil.*bool"):
        torch.tensor([True]).ceil()
    with pytest.raises(NotImplementedError, match="bitwise_and.*float32"):
        torch.ones(2).bitwise_and(torch.ones(2))


@pytest.mark.parametrize("transposed", [False, True])
def test_log_softmax_keeps_the_log_sum_near_float_max(transposed):
    x = torch.tensor([[3e38, 3e38, 1e38]] * 20)
    x = x.t().contiguous().t() if transposed else x  # the strided (column block) kernel too
    want = np.log(np.exp(np.array([0.0, 0.0, -2e38], dtype=np.float64)).sum())
    got = x.log_softmax(1)
    np.testing.assert_allclose(got[:, 0].numpy(), np.full(20, -want), rtol=1e-6)


def test_comparisons_name_bad_arguments():
    with pytest.raises(TypeError, match="equal.*other.*int"):
        torch.equal(torch.ones(2), 1)
    with pytest.raises(TypeError, match="isclose.*other.*int"):
        torch.isclose(torch.ones(2), 1)
    with pytest.raises(RuntimeError, match="float32 did not match torch.float64"):
        torch.allclose(torch.ones(2), torch.ones(2, dtype=torch.float64))
    assert torch.allclose(torch.ones(2), torch.ones(2) + 1e-7)


def test_pooling_output_sizes_are_bounded_before_their_tables_are_built():
    F = pytest.importorskip("torch.nn.functional")
    empty = torch.zeros(0, 1, 6, dtype=torch.float64)
    with pytest.raises(RuntimeError, match="too large"):  # built 48 GB of window tables
        F.adaptive_max_pool1d(empty, (2**31,))
    with pytest.raises(RuntimeError, match="too large"):
        F.max_pool1d(torch.ones(1, 1, 1).expand(1, 1, 2**40), 2)
    x = torch.arange(16.0).reshape(1, 1, 16)
    np.testing.assert_array_equal(
        F.adaptive_avg_pool1d(x, 4).numpy().ravel(), np.arange(16.0).reshape(4, 4).mean(1)
    )
