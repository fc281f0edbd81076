// op_docs.cpp — docstrings of the bindings that are defined in tables (op families) or
// without one, kept in one table here instead of beside each m.def.
//
// Keys: "abs" is torch.abs; "Tensor.size" a Tensor method that has no torch function;
// "Generator.seed" / "UntypedStorage.nbytes" methods of those classes. A Tensor method
// without its own entry reads "See torch.abs"; an in-place one ("abs_") without an entry
// reads "In-place version of Tensor.abs". Examples are doctests (packages/torch-core/tests/
// test_binding_docs.py runs them).
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>

#include "bind.h"

namespace tc {

namespace {

struct Doc {
  const char* key;
  const char* text;
};

// clang-format off
const Doc kDocs[] = {
    {"abs", R"DOC(Absolute value ``|x|`` of each element (for complex input, the modulus).

Args:
    input (Tensor): the input.

Example::

    >>> torch.abs(torch.tensor([-1.5, 0.0, 2.0]))
    tensor([1.5000, 0.0000, 2.0000]))DOC"},
    {"absolute", R"DOC(Alias of :func:`torch.abs`.)DOC"},
    {"acos", R"DOC(Inverse cosine of each element, in radians within ``[0, pi]``. Elements outside ``[-1, 1]``
give NaN; integer input is computed in the default floating-point dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.acos(torch.tensor([1.0, 0.0, -1.0]))
    tensor([0.0000, 1.5708, 3.1416]))DOC"},
    {"acosh", R"DOC(Inverse hyperbolic cosine of each element. Elements below 1 give NaN; integer input is
computed in the default floating-point dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.acosh(torch.tensor([1.0, 2.0]))
    tensor([0.0000, 1.3170]))DOC"},
    {"add", R"DOC(Elementwise ``input + alpha * other``. ``other`` may be a tensor or a Python number; the two
operands broadcast against each other and the result takes their promoted dtype.

Args:
    input (Tensor): the first operand.
    other (Tensor or Number): the operand that is scaled and added.
    alpha (Number, optional): factor applied to ``other`` first; default 1.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.add(torch.tensor([1, 2, 3]), torch.tensor([10, 20, 30]), alpha=2)
    tensor([21, 42, 63])
    >>> torch.add(torch.tensor([1, 2]), 1.5)
    tensor([2.5000, 3.5000]))DOC"},
    {"addcdiv", R"DOC(Elementwise ``input + value * tensor1 / tensor2``, with the three tensors broadcast together.
The division is always true (floating-point) division.

Args:
    input (Tensor): the tensor added to.
    tensor1 (Tensor): the numerator.
    tensor2 (Tensor): the denominator.
    value (Number, optional): factor applied to the quotient; default 1.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> t = torch.tensor([1.0, 1.0])
    >>> torch.addcdiv(t, torch.tensor([2.0, 6.0]), torch.tensor([4.0, 3.0]), value=0.5)
    tensor([1.2500, 2.0000]))DOC"},
    {"addcmul", R"DOC(Elementwise ``input + value * tensor1 * tensor2``, with the three tensors broadcast together.

Args:
    input (Tensor): the tensor added to.
    tensor1 (Tensor): the first factor.
    tensor2 (Tensor): the second factor.
    value (Number, optional): factor applied to the product; default 1.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> t = torch.tensor([1.0, 1.0])
    >>> torch.addcmul(t, torch.tensor([2.0, 3.0]), torch.tensor([4.0, 5.0]), value=2)
    tensor([17., 31.]))DOC"},
    {"addmm", R"DOC(Matrix product plus a matrix: ``beta * input + alpha * (mat1 @ mat2)``. ``mat1`` is
``(n, m)``, ``mat2`` is ``(m, p)`` and ``input`` must broadcast to ``(n, p)``.

Args:
    input (Tensor): the matrix added to the product.
    mat1 (Tensor): the left matrix, ``(n, m)``.
    mat2 (Tensor): the right matrix, ``(m, p)``.
    beta (Number, optional): factor applied to ``input``; default 1.
    alpha (Number, optional): factor applied to the product; default 1.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.addmm(torch.ones(2, 2), torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.eye(2), beta=2)
    tensor([[3., 4.],
            [5., 6.]]))DOC"},
    {"addmv", R"DOC(Matrix-vector product plus a vector: ``beta * input + alpha * (mat @ vec)``. ``mat`` is
``(n, m)``, ``vec`` has ``m`` elements and ``input`` must broadcast to ``(n,)``.

Args:
    input (Tensor): the vector added to the product.
    mat (Tensor): the matrix, ``(n, m)``.
    vec (Tensor): the vector, ``(m,)``.
    beta (Number, optional): factor applied to ``input``; default 1.
    alpha (Number, optional): factor applied to the product; default 1.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> m = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> torch.addmv(torch.tensor([1.0, 1.0]), m, torch.tensor([1.0, 1.0]))
    tensor([4., 8.]))DOC"},
    {"arccos", R"DOC(Alias of :func:`torch.acos`.)DOC"},
    {"arccosh", R"DOC(Alias of :func:`torch.acosh`.)DOC"},
    {"arcsin", R"DOC(Alias of :func:`torch.asin`.)DOC"},
    {"arcsinh", R"DOC(Alias of :func:`torch.asinh`.)DOC"},
    {"arctan", R"DOC(Alias of :func:`torch.atan`.)DOC"},
    {"arctan2", R"DOC(Alias of :func:`torch.atan2`.)DOC"},
    {"arctanh", R"DOC(Alias of :func:`torch.atanh`.)DOC"},
    {"asin", R"DOC(Inverse sine of each element, in radians within ``[-pi/2, pi/2]``. Elements outside
``[-1, 1]`` give NaN; integer input is computed in the default floating-point dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.asin(torch.tensor([0.0, 1.0]))
    tensor([0.0000, 1.5708]))DOC"},
    {"asinh", R"DOC(Inverse hyperbolic sine of each element; integer input is computed in the default
floating-point dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.asinh(torch.tensor([0.0, 1.0]))
    tensor([0.0000, 0.8814]))DOC"},
    {"atan", R"DOC(Inverse tangent of each element, in radians within ``(-pi/2, pi/2)``; integer input is
computed in the default floating-point dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.atan(torch.tensor([0.0, 1.0]))
    tensor([0.0000, 0.7854]))DOC"},
    {"atan2", R"DOC(Quadrant-aware inverse tangent of ``input / other``: the angle, in ``(-pi, pi]``, of the point
``(x=other, y=input)``. The operands broadcast against each other.

Args:
    input (Tensor): the y coordinates.
    other (Tensor): the x coordinates.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.atan2(torch.tensor([1.0, 1.0, -1.0]), torch.tensor([1.0, -1.0, 0.0]))
    tensor([ 0.7854,  2.3562, -1.5708]))DOC"},
    {"atanh", R"DOC(Inverse hyperbolic tangent of each element: +-inf at +-1, NaN outside ``[-1, 1]``; integer
input is computed in the default floating-point dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.atanh(torch.tensor([0.0, 0.5]))
    tensor([0.0000, 0.5493]))DOC"},
    {"baddbmm", R"DOC(Batched matrix product plus a tensor: ``beta * input + alpha * (batch1 @ batch2)``, one
product per batch entry. ``batch1`` is ``(b, n, m)``, ``batch2`` is ``(b, m, p)`` and
``input`` must broadcast to ``(b, n, p)``.

Args:
    input (Tensor): the tensor added to the products.
    batch1 (Tensor): the left matrices, ``(b, n, m)``.
    batch2 (Tensor): the right matrices, ``(b, m, p)``.
    beta (Number, optional): factor applied to ``input``; default 1.
    alpha (Number, optional): factor applied to the products; default 1.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.baddbmm(torch.zeros(2, 1, 1), torch.ones(2, 1, 3), torch.ones(2, 3, 1), alpha=2).shape
    torch.Size([2, 1, 1]))DOC"},
    {"bitwise_and", R"DOC(Elementwise bitwise AND of integer or boolean operands (logical AND for booleans). The
operands broadcast against each other; ``other`` may be a Python integer.

Args:
    input (Tensor): the first operand.
    other (Tensor or int): the second operand.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.bitwise_and(torch.tensor([12, 10]), torch.tensor([10, 6]))
    tensor([8, 2]))DOC"},
    {"bitwise_left_shift", R"DOC(Shifts the bits of each integer element of ``input`` left by ``other`` places; bits shifted
past the width of the dtype are lost. The operands broadcast against each other.

Args:
    input (Tensor): the integer values to shift.
    other (Tensor or int): the shift amounts.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.bitwise_left_shift(torch.tensor([1, 3]), 2)
    tensor([ 4, 12]))DOC"},
    {"bitwise_not", R"DOC(Elementwise bitwise NOT of an integer or boolean tensor (logical NOT for booleans).

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.bitwise_not(torch.tensor([0, 5, -3]))
    tensor([-1, -6,  2])
    >>> torch.bitwise_not(torch.tensor([True, False]))
    tensor([False,  True]))DOC"},
    {"bitwise_or", R"DOC(Elementwise bitwise OR of integer or boolean operands (logical OR for booleans). The
operands broadcast against each other; ``other`` may be a Python integer.

Args:
    input (Tensor): the first operand.
    other (Tensor or int): the second operand.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.bitwise_or(torch.tensor([12, 10]), torch.tensor([10, 6]))
    tensor([14, 14]))DOC"},
    {"bitwise_right_shift", R"DOC(Shifts the bits of each integer element of ``input`` right by ``other`` places. The shift is
arithmetic: signed values keep their sign. The operands broadcast against each other.

Args:
    input (Tensor): the integer values to shift.
    other (Tensor or int): the shift amounts.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.bitwise_right_shift(torch.tensor([16, -16]), 2)
    tensor([ 4, -4]))DOC"},
    {"bitwise_xor", R"DOC(Elementwise bitwise exclusive OR of integer or boolean operands. The operands broadcast
against each other; ``other`` may be a Python integer.

Args:
    input (Tensor): the first operand.
    other (Tensor or int): the second operand.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.bitwise_xor(torch.tensor([12, 10]), torch.tensor([10, 6]))
    tensor([ 6, 12]))DOC"},
    {"bmm", R"DOC(Batched matrix product: ``input[i] @ mat2[i]`` for every batch index ``i``. ``input`` is
``(b, n, m)`` and ``mat2`` is ``(b, m, p)``; no broadcasting is done.

Args:
    input (Tensor): the left matrices, ``(b, n, m)``.
    mat2 (Tensor): the right matrices, ``(b, m, p)``.
    out (Tensor, optional): tensor the result is written into (and returned).

Returns:
    Tensor: the products, ``(b, n, p)``.

Example::

    >>> torch.bmm(torch.ones(2, 2, 3), torch.ones(2, 3, 4)).shape
    torch.Size([2, 2, 4]))DOC"},
    {"can_cast", R"DOC(Whether a value of dtype ``from_`` may be cast to ``to`` under the type promotion rules: a
cast is refused only when it goes to a lower kind (floating point to integer, integer to
bool, and so on). Casts within a kind, even narrowing ones, are allowed.

Args:
    from_ (torch.dtype): the source dtype.
    to (torch.dtype): the target dtype.

Example::

    >>> torch.can_cast(torch.int32, torch.float32)
    True
    >>> torch.can_cast(torch.float32, torch.int32)
    False)DOC"},
    {"ceil", R"DOC(Rounds each element up to the nearest integer, keeping the dtype (integer input is returned
unchanged).

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.ceil(torch.tensor([-1.5, 0.2, 2.0]))
    tensor([-1.,  1.,  2.]))DOC"},
    {"cos", R"DOC(Cosine of each element, given in radians; integer input is computed in the default
floating-point dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.cos(torch.tensor([0.0, 1.0]))
    tensor([1.0000, 0.5403]))DOC"},
    {"cosh", R"DOC(Hyperbolic cosine of each element; integer input is computed in the default floating-point
dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.cosh(torch.tensor([0.0, 1.0]))
    tensor([1.0000, 1.5431]))DOC"},
    {"div", R"DOC(Elementwise ``input / other`` with broadcasting (``torch.divide`` and ``torch.true_divide``
are this same function). Without ``rounding_mode`` this is true division: integers give a
floating-point result. ``"trunc"`` rounds the quotient toward zero and ``"floor"`` toward
-inf, both keeping the promoted dtype.

Args:
    input (Tensor or Number): the dividend.
    other (Tensor or Number): the divisor.
    rounding_mode (str, optional): ``None`` (default), ``"trunc"`` or ``"floor"``.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.div(torch.tensor([7, -7]), 2)
    tensor([ 3.5000, -3.5000])
    >>> torch.div(torch.tensor([7, -7]), 2, rounding_mode="floor")
    tensor([ 3, -4]))DOC"},
    {"divide", R"DOC(Alias of :func:`torch.div`.)DOC"},
    {"dot", R"DOC(Inner product of two 1-D tensors with the same number of elements and the same dtype.

Args:
    input (Tensor): the first vector.
    other (Tensor): the second vector.
    out (Tensor, optional): tensor the result is written into (and returned).

Returns:
    Tensor: a 0-dim tensor holding the sum of the elementwise products.

Example::

    >>> torch.dot(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([4.0, 5.0, 6.0]))
    tensor(32.))DOC"},
    {"eq", R"DOC(Elementwise test ``input == other`` with broadcasting; ``other`` may be a number. NaN is not
equal to anything, itself included.

Args:
    input (Tensor): the first operand.
    other (Tensor or Number): the second operand.
    out (Tensor, optional): tensor the result is written into (and returned).

Returns:
    Tensor: a ``torch.bool`` tensor.

Example::

    >>> torch.eq(torch.tensor([1, 2, 3]), torch.tensor([1, 0, 3]))
    tensor([ True, False,  True]))DOC"},
    {"erf", R"DOC(Gauss error function of each element; integer input is computed in the default
floating-point dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.erf(torch.tensor([0.0, 1.0, -1.0]))
    tensor([ 0.0000,  0.8427, -0.8427]))DOC"},
    {"erfinv", R"DOC(Inverse of the error function, elementwise: defined on ``[-1, 1]``, with ``-1`` and ``1``
mapped to ``-inf`` and ``inf`` and NaN outside.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.erfinv(torch.tensor([0.0, 0.5, -1.0]))
    tensor([0.0000, 0.4769,   -inf]))DOC"},
    {"exp", R"DOC(Natural exponential ``e ** x`` of each element; integer input is computed in the default
floating-point dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.exp(torch.tensor([0.0, 1.0]))
    tensor([1.0000, 2.7183]))DOC"},
    {"exp2", R"DOC(Base-2 exponential ``2 ** x`` of each element; integer input is computed in the default
floating-point dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.exp2(torch.tensor([0.0, 3.0, -1.0]))
    tensor([1.0000, 8.0000, 0.5000]))DOC"},
    {"expm1", R"DOC(``exp(x) - 1`` of each element, computed without the cancellation that the plain formula
suffers for ``x`` near zero.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.expm1(torch.tensor([0.0, 1e-8]))
    tensor([0.0000e+00, 1.0000e-08]))DOC"},
    {"fix", R"DOC(Alias of :func:`torch.trunc`.)DOC"},
    {"floor", R"DOC(Rounds each element down to the nearest integer, keeping the dtype (integer input is
returned unchanged).

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.floor(torch.tensor([-1.5, 0.2, 2.0]))
    tensor([-2.,  0.,  2.]))DOC"},
    {"floor_divide", R"DOC(Elementwise division rounded toward negative infinity, with broadcasting and the promoted
dtype of the operands; the same as ``torch.div(input, other, rounding_mode="floor")``.

Args:
    input (Tensor or Number): the dividend.
    other (Tensor or Number): the divisor.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.floor_divide(torch.tensor([7, -7]), 2)
    tensor([ 3, -4]))DOC"},
    {"fmod", R"DOC(Elementwise remainder of ``input / other`` for a quotient truncated toward zero (C's
``fmod``): the result has the sign of the dividend. Compare :func:`torch.remainder`.

Args:
    input (Tensor or Number): the dividend.
    other (Tensor or Number): the divisor.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.fmod(torch.tensor([-3.0, 3.5]), 2)
    tensor([-1.0000,  1.5000]))DOC"},
    {"frac", R"DOC(Fractional part of each element, ``x - trunc(x)``: it keeps the sign of ``x``.

Args:
    input (Tensor): a floating-point input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.frac(torch.tensor([-1.25, 2.5]))
    tensor([-0.2500,  0.5000]))DOC"},
    {"from_dlpack", R"DOC(Wraps, without copying, a tensor from another library that implements the DLPack protocol
(``__dlpack__``), or a DLPack capsule; writes through either object are seen by both.

Args:
    ext_tensor (object): the object or capsule to import.

Returns:
    Tensor: a tensor sharing the producer's memory.

Example::

    >>> torch.from_dlpack(np.array([1.0, 2.0]))
    tensor([1., 2.], dtype=torch.float64))DOC"},
    {"from_numpy", R"DOC(A tensor that shares its memory with a NumPy array, with the matching dtype; writing
through either one is visible in the other.

Args:
    ndarray (numpy.ndarray): the array to wrap.

Example::

    >>> a = np.array([1, 2, 3])
    >>> t = torch.from_numpy(a)
    >>> t[0] = 9
    >>> a
    array([9, 2, 3]))DOC"},
    {"ge", R"DOC(Elementwise test ``input >= other`` with broadcasting; ``other`` may be a number.

Args:
    input (Tensor): the first operand.
    other (Tensor or Number): the second operand.
    out (Tensor, optional): tensor the result is written into (and returned).

Returns:
    Tensor: a ``torch.bool`` tensor.

Example::

    >>> torch.ge(torch.tensor([1, 2, 3]), 2)
    tensor([False,  True,  True]))DOC"},
    {"get_default_dtype", R"DOC(The floating-point dtype that new tensors get when none is given (for instance
``torch.tensor([1.5])``); see :func:`torch.set_default_dtype`.

Returns:
    torch.dtype: the current default, ``torch.float32`` at start-up.

Example::

    >>> torch.get_default_dtype()
    torch.float32)DOC"},
    {"greater", R"DOC(Alias of :func:`torch.gt`.)DOC"},
    {"greater_equal", R"DOC(Alias of :func:`torch.ge`.)DOC"},
    {"gt", R"DOC(Elementwise test ``input > other`` with broadcasting; ``other`` may be a number.

Args:
    input (Tensor): the first operand.
    other (Tensor or Number): the second operand.
    out (Tensor, optional): tensor the result is written into (and returned).

Returns:
    Tensor: a ``torch.bool`` tensor.

Example::

    >>> torch.gt(torch.tensor([1, 2, 3]), 2)
    tensor([False, False,  True]))DOC"},
    {"is_grad_enabled", R"DOC(Whether autograd records operations in the current thread: ``False`` inside
``torch.no_grad()`` or after ``torch.set_grad_enabled(False)``.

Returns:
    bool: the current gradient mode.

Example::

    >>> torch.is_grad_enabled()
    True
    >>> with torch.no_grad():
    ...     torch.is_grad_enabled()
    False)DOC"},
    {"isfinite", R"DOC(Elementwise test for finite values: ``False`` for infinities and NaN. Integer and boolean
elements are always finite.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Returns:
    Tensor: a ``torch.bool`` tensor.

Example::

    >>> torch.isfinite(torch.tensor([1.0, float("inf"), float("nan")]))
    tensor([ True, False, False]))DOC"},
    {"isinf", R"DOC(Elementwise test for positive or negative infinity.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Returns:
    Tensor: a ``torch.bool`` tensor.

Example::

    >>> torch.isinf(torch.tensor([1.0, float("inf"), -float("inf"), float("nan")]))
    tensor([False,  True,  True, False]))DOC"},
    {"isnan", R"DOC(Elementwise test for NaN.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Returns:
    Tensor: a ``torch.bool`` tensor.

Example::

    >>> torch.isnan(torch.tensor([1.0, float("inf"), float("nan")]))
    tensor([False, False,  True]))DOC"},
    {"le", R"DOC(Elementwise test ``input <= other`` with broadcasting; ``other`` may be a number.

Args:
    input (Tensor): the first operand.
    other (Tensor or Number): the second operand.
    out (Tensor, optional): tensor the result is written into (and returned).

Returns:
    Tensor: a ``torch.bool`` tensor.

Example::

    >>> torch.le(torch.tensor([1, 2, 3]), 2)
    tensor([ True,  True, False]))DOC"},
    {"less", R"DOC(Alias of :func:`torch.lt`.)DOC"},
    {"less_equal", R"DOC(Alias of :func:`torch.le`.)DOC"},
    {"log", R"DOC(Natural logarithm of each element: ``-inf`` at zero and NaN for negative values. Integer
input is computed in the default floating-point dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.log(torch.tensor([1.0, 0.0, -1.0]))
    tensor([0., -inf, nan]))DOC"},
    {"log10", R"DOC(Base-10 logarithm of each element; integer input is computed in the default floating-point
dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.log10(torch.tensor([1.0, 100.0]))
    tensor([0., 2.]))DOC"},
    {"log1p", R"DOC(``log(1 + x)`` of each element, accurate for ``x`` near zero where forming ``1 + x`` first
would lose digits.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.log1p(torch.tensor([0.0, 1e-8]))
    tensor([0.0000e+00, 1.0000e-08]))DOC"},
    {"log2", R"DOC(Base-2 logarithm of each element; integer input is computed in the default floating-point
dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.log2(torch.tensor([1.0, 8.0, 0.5]))
    tensor([ 0.,  3., -1.]))DOC"},
    {"logical_and", R"DOC(Elementwise logical AND, treating zero as ``False`` and any other value as ``True``. The
operands may have any dtypes and broadcast against each other.

Args:
    input (Tensor): the first operand.
    other (Tensor): the second operand.
    out (Tensor, optional): tensor the result is written into (and returned).

Returns:
    Tensor: a ``torch.bool`` tensor.

Example::

    >>> torch.logical_and(torch.tensor([1, 0, 3]), torch.tensor([2.0, 1.0, 0.0]))
    tensor([ True, False, False]))DOC"},
    {"logical_not", R"DOC(Elementwise logical NOT: ``True`` where the input is zero, ``False`` elsewhere.

Args:
    input (Tensor): the input, of any dtype.
    out (Tensor, optional): tensor the result is written into (and returned).

Returns:
    Tensor: a ``torch.bool`` tensor.

Example::

    >>> torch.logical_not(torch.tensor([0, 1, -2]))
    tensor([ True, False, False]))DOC"},
    {"logical_or", R"DOC(Elementwise logical OR, treating zero as ``False`` and any other value as ``True``. The
operands may have any dtypes and broadcast against each other.

Args:
    input (Tensor): the first operand.
    other (Tensor): the second operand.
    out (Tensor, optional): tensor the result is written into (and returned).

Returns:
    Tensor: a ``torch.bool`` tensor.

Example::

    >>> torch.logical_or(torch.tensor([1, 0, 0]), torch.tensor([0, 0, 3]))
    tensor([ True, False,  True]))DOC"},
    {"logical_xor", R"DOC(Elementwise logical exclusive OR, treating zero as ``False`` and any other value as
``True``. The operands may have any dtypes and broadcast against each other.

Args:
    input (Tensor): the first operand.
    other (Tensor): the second operand.
    out (Tensor, optional): tensor the result is written into (and returned).

Returns:
    Tensor: a ``torch.bool`` tensor.

Example::

    >>> torch.logical_xor(torch.tensor([1, 0, 3]), torch.tensor([1, 1, 0]))
    tensor([False,  True,  True]))DOC"},
    {"lt", R"DOC(Elementwise test ``input < other`` with broadcasting; ``other`` may be a number.

Args:
    input (Tensor): the first operand.
    other (Tensor or Number): the second operand.
    out (Tensor, optional): tensor the result is written into (and returned).

Returns:
    Tensor: a ``torch.bool`` tensor.

Example::

    >>> torch.lt(torch.tensor([1, 2, 3]), 2)
    tensor([ True, False, False]))DOC"},
    {"matmul", R"DOC(Matrix product whose behaviour follows the operands' dims: two vectors give their dot
product, a matrix and a vector a matrix-vector product, two matrices a matrix product. With
more than two dims the leading (batch) dims broadcast and a 1-D operand is treated as a
row (left) or column (right) vector that is removed from the result.

Args:
    input (Tensor): the left operand.
    other (Tensor): the right operand.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.matmul(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
    tensor(11.)
    >>> torch.matmul(torch.ones(5, 2, 3), torch.ones(3, 4)).shape
    torch.Size([5, 2, 4]))DOC"},
    {"maximum", R"DOC(Elementwise maximum of two broadcast operands, in their promoted dtype. A NaN in either
operand makes that result NaN.

Args:
    input (Tensor): the first operand.
    other (Tensor): the second operand.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.maximum(torch.tensor([1.0, 5.0, float("nan")]), torch.tensor([3.0, 2.0, 0.0]))
    tensor([3., 5., nan]))DOC"},
    {"minimum", R"DOC(Elementwise minimum of two broadcast operands, in their promoted dtype. A NaN in either
operand makes that result NaN.

Args:
    input (Tensor): the first operand.
    other (Tensor): the second operand.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.minimum(torch.tensor([1.0, 5.0, float("nan")]), torch.tensor([3.0, 2.0, 0.0]))
    tensor([1., 2., nan]))DOC"},
    {"mm", R"DOC(Product of two matrices, ``(n, m) @ (m, p) -> (n, p)``, without broadcasting (see
:func:`torch.matmul` for that).

Args:
    input (Tensor): the left matrix, ``(n, m)``.
    mat2 (Tensor): the right matrix, ``(m, p)``.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.mm(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[1.0], [1.0]]))
    tensor([[3.],
            [7.]]))DOC"},
    {"mul", R"DOC(Elementwise product ``input * other`` with broadcasting; ``other`` may be a number. The
result takes the promoted dtype of the operands.

Args:
    input (Tensor or Number): the first factor.
    other (Tensor or Number): the second factor.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.mul(torch.tensor([1, 2, 3]), 2.5)
    tensor([2.5000, 5.0000, 7.5000])
    >>> torch.mul(torch.tensor([1, 2, 3]), torch.tensor([[1], [2]]))
    tensor([[1, 2, 3],
            [2, 4, 6]]))DOC"},
    {"multinomial", R"DOC(Draws ``num_samples`` category indices per row of ``input``, whose non-negative weights need
not sum to 1. Without ``replacement`` an index is drawn at most once per row, so
``num_samples`` may not exceed the number of non-zero weights.

Args:
    input (Tensor): the weights, 1-D or 2-D.
    num_samples (int): how many indices to draw per row.
    replacement (bool, optional): draw with replacement; default ``False``.
    generator (torch.Generator, optional): the source of randomness.

Returns:
    Tensor: ``torch.int64`` indices, ``(num_samples,)`` or ``(rows, num_samples)``.

Example::

    >>> torch.multinomial(torch.tensor([0.0, 1.0, 0.0]), 3, replacement=True)
    tensor([1, 1, 1]))DOC"},
    {"multiply", R"DOC(Alias of :func:`torch.mul`.)DOC"},
    {"mv", R"DOC(Product of a matrix and a vector, ``(n, m) @ (m,) -> (n,)``, without broadcasting.

Args:
    input (Tensor): the matrix, ``(n, m)``.
    vec (Tensor): the vector, ``(m,)``.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.mv(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([1.0, -1.0]))
    tensor([-1., -1.]))DOC"},
    {"ne", R"DOC(Elementwise test ``input != other`` with broadcasting; ``other`` may be a number. NaN is
unequal to everything, itself included.

Args:
    input (Tensor): the first operand.
    other (Tensor or Number): the second operand.
    out (Tensor, optional): tensor the result is written into (and returned).

Returns:
    Tensor: a ``torch.bool`` tensor.

Example::

    >>> torch.ne(torch.tensor([1, 2, 3]), 2)
    tensor([ True, False,  True]))DOC"},
    {"neg", R"DOC(Negation ``-x`` of each element, keeping the dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.neg(torch.tensor([1, -2, 0]))
    tensor([-1,  2,  0]))DOC"},
    {"negative", R"DOC(Alias of :func:`torch.neg`.)DOC"},
    {"not_equal", R"DOC(Alias of :func:`torch.ne`.)DOC"},
    {"pow", R"DOC(Elementwise power ``input ** other`` with broadcasting. Either operand may be a Python number;
the result takes their promoted dtype. Integer bases cannot take negative
integer exponents.

Args:
    input (Tensor or Number): the base.
    other (Tensor or Number): the exponent.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.pow(torch.tensor([1, 2, 3]), 2)
    tensor([1, 4, 9])
    >>> torch.pow(2, torch.tensor([1, 2, 3]))
    tensor([2, 4, 8]))DOC"},
    {"promote_types", R"DOC(The dtype that an operation on tensors of dtypes ``type1`` and ``type2`` computes in: the
smallest dtype able to represent both, preferring the higher kind (bool < integer <
floating point < complex).

Args:
    type1 (torch.dtype): the first dtype.
    type2 (torch.dtype): the second dtype.

Returns:
    torch.dtype: the promoted dtype.

Example::

    >>> torch.promote_types(torch.uint8, torch.int8)
    torch.int16)DOC"},
    {"reciprocal", R"DOC(``1 / x`` of each element (``inf`` at zero); integer input is computed in the default
floating-point dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.reciprocal(torch.tensor([2.0, 0.5, 0.0]))
    tensor([0.5000, 2.0000,    inf]))DOC"},
    {"relu", R"DOC(Rectified linear unit: each element clamped below at zero, ``max(x, 0)``.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.relu(torch.tensor([-1.0, 0.0, 2.0]))
    tensor([0., 0., 2.]))DOC"},
    {"remainder", R"DOC(Elementwise remainder of ``input / other`` for a quotient rounded toward negative infinity
(Python's ``%``): a non-zero result has the sign of the divisor. Compare :func:`torch.fmod`.

Args:
    input (Tensor or Number): the dividend.
    other (Tensor or Number): the divisor.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.remainder(torch.tensor([-3.0, 3.5]), 2)
    tensor([1.0000, 1.5000]))DOC"},
    {"result_type", R"DOC(The dtype that an arithmetic operation on ``tensor1`` and ``tensor2`` would return. Python
numbers and 0-dim tensors only raise the kind of the result (to floating point, say); they
do not widen the dtype of a tensor that has dims.

Args:
    tensor1 (Tensor or Number): the first operand.
    tensor2 (Tensor or Number): the second operand.

Example::

    >>> torch.result_type(torch.tensor([1, 2], dtype=torch.int32), 5)
    torch.int32
    >>> torch.result_type(torch.tensor([1, 2]), 1.0)
    torch.float32)DOC"},
    {"round", R"DOC(Rounds each element to the nearest integer, or to ``decimals`` decimal places; ties go to
the even neighbour. The dtype is kept.

Args:
    input (Tensor): the input.
    decimals (int, optional): number of decimal places (negative: round to tens, hundreds,
        ...); default 0.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.round(torch.tensor([0.5, 1.5, 2.5]))
    tensor([0., 2., 2.])
    >>> torch.round(torch.tensor([1.2345, 9.8765]), decimals=2)
    tensor([1.2300, 9.8800]))DOC"},
    {"rsqrt", R"DOC(Reciprocal square root ``1 / sqrt(x)`` of each element; integer input is computed in the
default floating-point dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.rsqrt(torch.tensor([4.0, 0.25]))
    tensor([0.5000, 2.0000]))DOC"},
    {"set_default_dtype", R"DOC(Sets the floating-point dtype that new tensors get when none is given (Python floats, for
instance). Only floating-point dtypes are accepted.

Args:
    d (torch.dtype): the new default, such as ``torch.float64``.

Example::

    >>> torch.set_default_dtype(torch.float64)
    >>> torch.tensor([1.5]).dtype
    torch.float64
    >>> torch.set_default_dtype(torch.float32))DOC"},
    {"set_num_threads", R"DOC(Sets the number of threads that the CPU kernels and BLAS use.

Args:
    num (int): the number of threads, at least 1.

Example::

    >>> n = torch.get_num_threads()
    >>> torch.set_num_threads(1)
    >>> torch.get_num_threads()
    1
    >>> torch.set_num_threads(n))DOC"},
    {"sigmoid", R"DOC(Logistic sigmoid ``1 / (1 + exp(-x))`` of each element; integer input is computed in the
default floating-point dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.sigmoid(torch.tensor([0.0, 2.0]))
    tensor([0.5000, 0.8808]))DOC"},
    {"sign", R"DOC(Sign of each element: ``-1``, ``0`` or ``1``, in the input's dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.sign(torch.tensor([-2.5, 0.0, 3.0]))
    tensor([-1.,  0.,  1.]))DOC"},
    {"sin", R"DOC(Sine of each element, given in radians; integer input is computed in the default
floating-point dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.sin(torch.tensor([0.0, 1.0]))
    tensor([0.0000, 0.8415]))DOC"},
    {"sinh", R"DOC(Hyperbolic sine of each element; integer input is computed in the default floating-point
dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.sinh(torch.tensor([0.0, 1.0]))
    tensor([0.0000, 1.1752]))DOC"},
    {"sqrt", R"DOC(Square root of each element (NaN for negative values); integer input is computed in the
default floating-point dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.sqrt(torch.tensor([4.0, 2.0, -1.0]))
    tensor([2.0000, 1.4142,    nan]))DOC"},
    {"sub", R"DOC(Elementwise ``input - alpha * other`` with broadcasting; ``other`` may be a number and the
result takes the promoted dtype. :func:`torch.subtract` is the same function.

Args:
    input (Tensor): the operand subtracted from.
    other (Tensor or Number): the operand that is scaled and subtracted.
    alpha (Number, optional): factor applied to ``other`` first; default 1.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.sub(torch.tensor([10, 20]), torch.tensor([1, 2]), alpha=3)
    tensor([ 7, 14]))DOC"},
    {"subtract", R"DOC(Alias of :func:`torch.sub`.)DOC"},
    {"tan", R"DOC(Tangent of each element, given in radians; integer input is computed in the default
floating-point dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.tan(torch.tensor([0.0, 1.0]))
    tensor([0.0000, 1.5574]))DOC"},
    {"tanh", R"DOC(Hyperbolic tangent of each element; integer input is computed in the default floating-point
dtype.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.tanh(torch.tensor([0.0, 1.0]))
    tensor([0.0000, 0.7616]))DOC"},
    {"true_divide", R"DOC(Alias of :func:`torch.div` with ``rounding_mode=None``.)DOC"},
    {"trunc", R"DOC(Rounds each element toward zero, dropping its fractional part; the dtype is kept.

Args:
    input (Tensor): the input.
    out (Tensor, optional): tensor the result is written into (and returned).

Example::

    >>> torch.trunc(torch.tensor([-1.7, 1.7]))
    tensor([-1.,  1.]))DOC"},
    {"Tensor.as_strided", R"DOC(A view of this tensor's storage with the given sizes and strides (in elements), starting at
``storage_offset``. Nothing is checked beyond the bounds of the storage, so the elements may
overlap or be visited in any order.

Args:
    size (tuple of int): the sizes of the view.
    stride (tuple of int): the strides of the view, in elements.
    storage_offset (int, optional): the first element's index in the storage; by default
        this tensor's own offset.

Example::

    >>> torch.arange(6.0).as_strided((2, 2), (1, 2))
    tensor([[0., 2.],
            [1., 3.]]))DOC"},
    {"Tensor.clone", R"DOC(A copy of this tensor in fresh, contiguous memory, with the same dtype and device; it shares
nothing with the original.

Args:
    memory_format (optional): accepted for compatibility; the copy is always contiguous.

Example::

    >>> a = torch.tensor([1, 2])
    >>> b = a.clone()
    >>> b[0] = 9
    >>> a
    tensor([1, 2]))DOC"},
    {"Tensor.contiguous", R"DOC(This tensor itself if it is already contiguous (row-major), else a contiguous copy of it.

Args:
    memory_format (optional): accepted for compatibility; only the row-major layout exists.

Example::

    >>> t = torch.ones(2, 3).t()
    >>> t.is_contiguous(), t.contiguous().is_contiguous()
    (False, True))DOC"},
    {"Tensor.copy_", R"DOC(Copies the values of ``src`` into this tensor and returns it. ``src`` is broadcast to this
tensor's shape and converted to its dtype; this tensor's layout does not change.

Args:
    src (Tensor): the values to copy.
    non_blocking (bool, optional): accepted for compatibility; the copy is finished when the
        call returns.

Example::

    >>> t = torch.zeros(2, 2)
    >>> t.copy_(torch.tensor([1.0, 2.0]))
    tensor([[1., 2.],
            [1., 2.]]))DOC"},
    {"Tensor.data_ptr", R"DOC(Address in memory of this tensor's first element (the storage's address plus
``storage_offset() * element_size()``).

Returns:
    int: the address.

Example::

    >>> t = torch.tensor([1.0, 2.0, 3.0])
    >>> t[1:].data_ptr() - t.data_ptr()
    4)DOC"},
    {"Tensor.detach", R"DOC(A new tensor that shares this tensor's data but is cut off from the autograd graph: it does
not require grad and has no history. Writes through either one are seen by both.

Example::

    >>> x = torch.ones(2, requires_grad=True)
    >>> x.detach().requires_grad
    False)DOC"},
    {"Tensor.diagonal", R"DOC(A view of the diagonal of the 2-D slices spanned by ``dim1`` and ``dim2``; those two dims are
removed and the diagonal becomes the last dim. ``offset`` > 0 selects a diagonal above the
main one, < 0 one below.

Args:
    offset (int, optional): which diagonal; default 0 (the main one).
    dim1 (int, optional): the first dim of the slices; default 0.
    dim2 (int, optional): the second dim of the slices; default 1.

Example::

    >>> torch.arange(9).reshape(3, 3).diagonal()
    tensor([0, 4, 8])
    >>> torch.arange(9).reshape(3, 3).diagonal(offset=1)
    tensor([1, 5]))DOC"},
    {"Tensor.dim", R"DOC(Number of dimensions of this tensor (0 for a scalar tensor).

Returns:
    int: the number of dims.

Example::

    >>> torch.ones(2, 3).dim()
    2)DOC"},
    {"Tensor.element_size", R"DOC(Size in bytes of one element of this tensor's dtype.

Returns:
    int: the element size.

Example::

    >>> torch.tensor([1.0]).element_size()
    4)DOC"},
    {"Tensor.expand", R"DOC(A view in which dims of size 1 are repeated (with stride 0, no copy) to the given sizes. A
size of ``-1`` keeps that dim; extra sizes in front add new leading dims. Write to the result
with care: its elements alias one another.

Args:
    *sizes (int or tuple of int): the target sizes.

Example::

    >>> torch.tensor([[1], [2]]).expand(2, 3)
    tensor([[1, 1, 1],
            [2, 2, 2]]))DOC"},
    {"Tensor.expand_as", R"DOC(``self.expand(other.size())``: a view of this tensor broadcast to the shape of ``other``.

Args:
    other (Tensor): the tensor whose shape is taken.

Example::

    >>> torch.tensor([1, 2]).expand_as(torch.zeros(2, 2))
    tensor([[1, 2],
            [1, 2]]))DOC"},
    {"Tensor.fill_", R"DOC(Sets every element of this tensor to ``value`` (converted to its dtype) and returns it.

Args:
    value (Number or Tensor): the value; a tensor must hold one element.

Example::

    >>> torch.zeros(2, 2).fill_(7)
    tensor([[7., 7.],
            [7., 7.]]))DOC"},
    {"Tensor.flatten", R"DOC(Merges the dims from ``start_dim`` to ``end_dim`` (both included) into one. The result is a
view when the strides allow it, else a copy; a 0-dim tensor becomes 1-D.

Args:
    start_dim (int, optional): the first dim to merge; default 0.
    end_dim (int, optional): the last dim to merge; default -1.

Example::

    >>> torch.zeros(2, 3, 4).flatten().shape
    torch.Size([24])
    >>> torch.zeros(2, 3, 4).flatten(1).shape
    torch.Size([2, 12]))DOC"},
    {"Tensor.is_contiguous", R"DOC(Whether the elements lie in memory in row-major order without gaps, as a freshly created
tensor of this shape would.

Args:
    memory_format (optional): accepted for compatibility; only row-major is checked.

Returns:
    bool: ``True`` if contiguous.

Example::

    >>> torch.ones(2, 3).t().is_contiguous()
    False)DOC"},
    {"Tensor.is_floating_point", R"DOC(Whether this tensor's dtype is a floating-point one (``float16``, ``bfloat16``, ``float32``,
``float64``...).

Returns:
    bool: ``True`` for a floating-point dtype.

Example::

    >>> torch.tensor([1.0]).is_floating_point(), torch.tensor([1]).is_floating_point()
    (True, False))DOC"},
    {"Tensor.is_inference", R"DOC(Whether this tensor was created under ``torch.inference_mode()`` (autograd never records
operations on such a tensor).

Returns:
    bool: ``True`` for an inference tensor.

Example::

    >>> with torch.inference_mode():
    ...     x = torch.ones(2)
    >>> x.is_inference(), torch.ones(2).is_inference()
    (True, False))DOC"},
    {"Tensor.item", R"DOC(The value of a one-element tensor as a Python number (``int``, ``float``, ``bool`` or
``complex``, matching the dtype). Other tensors raise an error.

Returns:
    Number: the element.

Example::

    >>> torch.tensor([2.5]).item()
    2.5)DOC"},
    {"Tensor.narrow", R"DOC(A view of ``length`` consecutive elements of dim ``dim``, starting at index ``start``; the
other dims are kept whole.

Args:
    dim (int): the dim to narrow.
    start (int): the first index kept (negative counts from the end).
    length (int): how many indices are kept.

Example::

    >>> torch.arange(5).narrow(0, 1, 3)
    tensor([1, 2, 3]))DOC"},
    {"Tensor.ndimension", R"DOC(Alias of :meth:`Tensor.dim`.)DOC"},
    {"Tensor.nelement", R"DOC(Alias of :meth:`Tensor.numel`.)DOC"},
    {"Tensor.numel", R"DOC(Total number of elements: the product of the sizes (1 for a 0-dim tensor).

Returns:
    int: the element count.

Example::

    >>> torch.zeros(2, 3).numel()
    6)DOC"},
    {"Tensor.permute", R"DOC(A view with the dims reordered: dim ``i`` of the result is dim ``dims[i]`` of this tensor.
Each dim must be named exactly once.

Args:
    *dims (int or tuple of int): the new order of the dims.

Example::

    >>> torch.zeros(2, 3, 4).permute(2, 0, 1).shape
    torch.Size([4, 2, 3]))DOC"},
    {"Tensor.reshape", R"DOC(The same elements, in row-major order, with a new shape. The result is a view when the
strides allow one, else a copy; one size may be ``-1`` and is then inferred.

Args:
    *shape (int or tuple of int): the new shape.

Example::

    >>> torch.arange(6).reshape(2, 3)
    tensor([[0, 1, 2],
            [3, 4, 5]])
    >>> torch.arange(6).reshape(-1, 2).shape
    torch.Size([3, 2]))DOC"},
    {"Tensor.reshape_as", R"DOC(``self.reshape(other.size())``: this tensor's elements in the shape of ``other``.

Args:
    other (Tensor): the tensor whose shape is taken.

Example::

    >>> torch.arange(6).reshape_as(torch.zeros(3, 2)).shape
    torch.Size([3, 2]))DOC"},
    {"Tensor.resize_", R"DOC(Gives this tensor the new sizes, with contiguous strides, in place, and returns it. The
storage grows when it is too small (new elements are uninitialised); existing elements are
kept in row-major order.

Args:
    *sizes (int or tuple of int): the new sizes.

Example::

    >>> t = torch.tensor([1, 2, 3, 4])
    >>> t.resize_(2, 2)
    tensor([[1, 2],
            [3, 4]]))DOC"},
    {"Tensor.select", R"DOC(A view of the slice at ``index`` along ``dim``, with that dim removed (``t.select(0, i)`` is
``t[i]``).

Args:
    dim (int): the dim to index.
    index (int): the index (negative counts from the end).

Example::

    >>> torch.arange(6).reshape(2, 3).select(1, 0)
    tensor([0, 3]))DOC"},
    {"Tensor.size", R"DOC(The shape of this tensor, or the size of one dim.

Args:
    dim (int, optional): the dim to report (negative counts from the end); by default all.

Returns:
    torch.Size or int: all the sizes, or the size of ``dim``.

Example::

    >>> torch.zeros(2, 3).size()
    torch.Size([2, 3])
    >>> torch.zeros(2, 3).size(-1)
    3)DOC"},
    {"Tensor.squeeze", R"DOC(A view with dims of size 1 removed: all of them, or only those named by ``dim`` (a named dim
whose size is not 1 is kept).

Args:
    dim (int or tuple of int, optional): the dims to remove; by default every size-1 dim.

Example::

    >>> torch.zeros(2, 1, 3, 1).squeeze().shape
    torch.Size([2, 3])
    >>> torch.zeros(2, 1, 3, 1).squeeze(1).shape
    torch.Size([2, 3, 1]))DOC"},
    {"Tensor.storage_offset", R"DOC(Index, in elements, of this tensor's first element within its storage.

Returns:
    int: the offset.

Example::

    >>> torch.arange(6)[2:].storage_offset()
    2)DOC"},
    {"Tensor.stride", R"DOC(The strides of this tensor: how many elements of the storage one step along each dim skips.

Args:
    dim (int, optional): the dim to report; by default all.

Returns:
    tuple of int or int: all the strides, or the stride of ``dim``.

Example::

    >>> torch.zeros(2, 3).stride()
    (3, 1)
    >>> torch.zeros(2, 3).t().stride()
    (1, 3))DOC"},
    {"Tensor.swapaxes", R"DOC(Alias of :meth:`Tensor.transpose` (``axis0`` and ``axis1`` name the two dims).)DOC"},
    {"Tensor.swapdims", R"DOC(Alias of :meth:`Tensor.transpose`.)DOC"},
    {"Tensor.t", R"DOC(A view of a tensor of at most 2 dims with its two dims swapped; 0-dim and 1-D tensors are
returned as they are (as views).

Example::

    >>> torch.tensor([[1, 2], [3, 4]]).t()
    tensor([[1, 3],
            [2, 4]]))DOC"},
    {"Tensor.tolist", R"DOC(The elements as (nested) Python lists of Python numbers, one level of nesting per dim; a
0-dim tensor gives a bare number.

Returns:
    list or Number: the values.

Example::

    >>> torch.tensor([[1, 2], [3, 4]]).tolist()
    [[1, 2], [3, 4]])DOC"},
    {"Tensor.transpose", R"DOC(A view with dims ``dim0`` and ``dim1`` swapped (their sizes and strides exchanged).

Args:
    dim0 (int): the first dim.
    dim1 (int): the second dim.

Example::

    >>> torch.zeros(2, 3, 4).transpose(0, 1).shape
    torch.Size([3, 2, 4]))DOC"},
    {"Tensor.unfold", R"DOC(A view of all the windows of ``size`` consecutive elements along ``dimension``, taken every
``step`` elements. That dim becomes the number of windows and a new last dim of length
``size`` holds each window.

Args:
    dimension (int): the dim to slide along.
    size (int): the length of a window.
    step (int): the distance between the starts of two windows.

Example::

    >>> torch.arange(7).unfold(0, 3, 2)
    tensor([[0, 1, 2],
            [2, 3, 4],
            [4, 5, 6]]))DOC"},
    {"Tensor.unsqueeze", R"DOC(A view with a new dim of size 1 inserted at position ``dim`` (negative values count from
``dim() + 1``).

Args:
    dim (int): where the new dim goes.

Example::

    >>> torch.tensor([1, 2]).unsqueeze(0)
    tensor([[1, 2]])
    >>> torch.tensor([1, 2]).unsqueeze(-1).shape
    torch.Size([2, 1]))DOC"},
    {"Tensor.untyped_storage", R"DOC(The :class:`torch.UntypedStorage` holding this tensor's data: a flat buffer of bytes that
all views of the tensor share.

Returns:
    UntypedStorage: the storage.

Example::

    >>> torch.tensor([1.0, 2.0, 3.0]).untyped_storage().nbytes()
    12)DOC"},
    {"Tensor.view", R"DOC(A tensor that shares this tensor's data with a new shape (one size may be ``-1``, inferred).
No data is copied, so the strides must allow the new shape; use :meth:`Tensor.reshape`
where they may not.

Args:
    *shape (int or tuple of int): the new shape.

Example::

    >>> torch.arange(6).view(2, 3)
    tensor([[0, 1, 2],
            [3, 4, 5]]))DOC"},
    {"Tensor.view_as", R"DOC(``self.view(other.size())``: a view of this tensor in the shape of ``other``.

Args:
    other (Tensor): the tensor whose shape is taken.

Example::

    >>> torch.arange(6).view_as(torch.zeros(2, 3)).shape
    torch.Size([2, 3]))DOC"},
    {"Tensor.zero_", R"DOC(Sets every element of this tensor to zero and returns it.

Example::

    >>> torch.ones(3).zero_()
    tensor([0., 0., 0.]))DOC"},
    {"Generator.initial_seed", R"DOC(The seed this generator was last seeded with, by :meth:`manual_seed` or :meth:`seed`.

Returns:
    int: the seed.

Example::

    >>> g = torch.Generator()
    >>> g.manual_seed(42).initial_seed()
    42)DOC"},
    {"Generator.manual_seed", R"DOC(Reseeds this generator: it then produces the same sequence as any generator given the same
seed.

Args:
    seed (int): the new seed.

Returns:
    Generator: this generator.

Example::

    >>> a = torch.rand(2, generator=torch.Generator().manual_seed(3))
    >>> b = torch.rand(2, generator=torch.Generator().manual_seed(3))
    >>> torch.equal(a, b)
    True)DOC"},
    {"Generator.seed", R"DOC(Reseeds this generator from a non-deterministic source and returns the new seed.

Returns:
    int: the new seed (also given by :meth:`initial_seed` afterwards).

Example::

    >>> g = torch.Generator()
    >>> g.seed() == g.initial_seed()
    True)DOC"},
    {"UntypedStorage.data_ptr", R"DOC(Address in memory of the first byte of this storage.

Returns:
    int: the address.

Example::

    >>> t = torch.tensor([1.0, 2.0])
    >>> t.untyped_storage().data_ptr() == t.data_ptr()
    True)DOC"},
    {"UntypedStorage.element_size", R"DOC(Size of one element of this storage in bytes: always 1, since its elements are bytes.

Returns:
    int: 1.

Example::

    >>> torch.tensor([1.0, 2.0]).untyped_storage().element_size()
    1)DOC"},
    {"UntypedStorage.nbytes", R"DOC(Size of this storage in bytes.

Returns:
    int: the byte count.

Example::

    >>> torch.tensor([1.0, 2.0, 3.0]).untyped_storage().nbytes()
    12)DOC"},
    {"UntypedStorage.size", R"DOC(Number of elements of this storage, that is its size in bytes (the same as :meth:`nbytes`).

Returns:
    int: the byte count.

Example::

    >>> torch.tensor([1.0, 2.0, 3.0]).untyped_storage().size()
    12)DOC"},
};
// clang-format on

// The function object behind a module attribute or a class attribute, else nullptr.
PyObject* function_of(PyObject* v) {
  if (PyCFunction_Check(v)) return v;
  if (PyInstanceMethod_Check(v) && PyCFunction_Check(PyInstanceMethod_GET_FUNCTION(v)))
    return PyInstanceMethod_GET_FUNCTION(v);
  return nullptr;
}

// pybind11 writes "name(signature) -> result\n" and then the docstring, if one was given.
// (pybind11's own listing of a function's overloads is no docstring: the table's text follows it)
bool has_docstring(const char* doc) {
  return doc && std::strstr(doc, "\n\n") != nullptr && !std::strstr(doc, "Overloaded function.");
}

// Appends `text` to the function's signature line. pybind11 frees ml_doc with std::free when
// the function is destroyed, so the new one is malloc'ed too.
void set_doc(PyObject* fn, const std::string& text) {
  PyMethodDef* def = reinterpret_cast<PyCFunctionObject*>(fn)->m_ml;
  std::string doc = std::string(def->ml_doc ? def->ml_doc : "") + "\n" + text + "\n";
  char* copy = static_cast<char*>(std::malloc(doc.size() + 1));
  if (!copy) throw std::bad_alloc();
  std::memcpy(copy, doc.c_str(), doc.size() + 1);
  std::free(const_cast<char*>(def->ml_doc));
  def->ml_doc = copy;
}

// Fills in the docstrings of `owner`'s functions that have none; prefix "" for the module,
// "Tensor." etc. for a class.
void fill(PyObject* dict, const std::string& prefix,
          const std::unordered_map<std::string, std::string>& docs) {
  for (auto [key, value] : py::reinterpret_borrow<py::dict>(dict)) {
    PyObject* fn = function_of(value.ptr());
    if (!fn || has_docstring(reinterpret_cast<PyCFunctionObject*>(fn)->m_ml->ml_doc)) continue;
    std::string name = py::str(key);
    auto own = docs.find(prefix + name);
    if (own != docs.end()) {
      set_doc(fn, own->second);
    } else if (prefix == "Tensor." && docs.count(name)) {
      set_doc(fn, "See :func:`torch." + name + "`.");
    } else if (prefix == "Tensor." && name.size() > 1 && name.back() == '_' &&
               name[name.size() - 2] != '_') {
      std::string base = name.substr(0, name.size() - 1);
      if (docs.count(base) || docs.count("Tensor." + base))
        set_doc(fn, "In-place version of :meth:`Tensor." + base +
                        "`: writes the result into "
                        "``self`` and returns it.");
    }
  }
}

}  // namespace

void apply_op_docs(py::module_& m, py::class_<Tensor>& cls) {
  std::unordered_map<std::string, std::string> docs;
  for (const Doc& d : kDocs) docs.emplace(d.key, d.text);
  fill(PyModule_GetDict(m.ptr()), "", docs);
  fill(reinterpret_cast<PyTypeObject*>(cls.ptr())->tp_dict, "Tensor.", docs);
  for (const char* name : {"Generator", "UntypedStorage"})
    if (py::hasattr(m, name))
      fill(reinterpret_cast<PyTypeObject*>(m.attr(name).ptr())->tp_dict, std::string(name) + ".",
           docs);
}

}  // namespace tc
