"""torch.jit.script: the compiled subset matches eager Python, control flow included; code
outside the subset is refused at decoration time with the offending line."""

import pytest

import torch
import torch.jit
from torch import nn
from torch.nn import functional as F


@torch.jit.script
def scale(x, k: int = 2):
    return x * k


def loops(x, n: int):
    y = x
    for i in range(n):
        y = y * 2 + i
    total = 0
    j = 0
    while j < 3:
        total += j
        j += 1
    return y + total


def branches(x, threshold: float = 0.0):
    if x.sum() > threshold:
        out = x.relu()
    elif x.mean() < -1.0:
        out = -x
    else:
        out = x * 0.5
    return out


def early_return(x, flag: bool):
    if flag:
        return x + 1
    y = x * 3
    return y


def tensor_while(x):
    while x.abs().sum() < 10.0:
        x = x * 2
    return x


def lists_and_tuples(x, sizes: list[int]) -> tuple[torch.Tensor, int]:
    acc = 0
    for s in sizes:
        acc += s
    parts = [x, x * 2]
    parts.append(x * 3)
    return torch.cat(parts, 0), acc + len(parts)


def optional_arg(x, bias: torch.Tensor | None = None):
    if bias is None:
        return x
    return x + bias


def dict_arg(d: dict[str, int], x):
    return x * d["a"]


def calls_scripted(x):
    return scale(x) + scale(x, 3) + F.relu(x) + torch.tanh(x)


CASES = [
    (loops, lambda: (torch.randn(3), 3)),
    (branches, lambda: (torch.randn(4),)),
    (branches, lambda: (-torch.ones(4) * 3,)),
    (branches, lambda: (-torch.ones(4) * 0.1,)),
    (early_return, lambda: (torch.randn(2), True)),
    (early_return, lambda: (torch.randn(2), False)),
    (tensor_while, lambda: (torch.ones(2) * 0.3,)),
    (lists_and_tuples, lambda: (torch.randn(2), [1, 2, 3])),
    (optional_arg, lambda: (torch.randn(2),)),
    (optional_arg, lambda: (torch.randn(2), torch.ones(2))),
    (dict_arg, lambda: ({"a": 4}, torch.ones(2))),
    (calls_scripted, lambda: (torch.randn(3),)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{c[0].__name__}{i}" for i, c in enumerate(CASES)])
def test_scripted_function_matches_python(fn, args):
    scripted = torch.jit.script(fn)
    a = args()
    got, expected = scripted(*a), fn(*a)
    if isinstance(expected, tuple):
        torch.testing.assert_close(got[0], expected[0])
        assert got[1] == expected[1]
    else:
        torch.testing.assert_close(got, expected)


def test_control_flow_is_in_the_graph():
    g = torch.jit.script(branches).graph
    text = str(g)
    assert "prim::If" in text
    assert "prim::Loop" in str(torch.jit.script(loops).graph)
    assert "if " in torch.jit.script(branches).code


def test_argument_types_are_checked():
    s = torch.jit.script(loops)
    with pytest.raises(RuntimeError, match="Expected a value of type 'int' for argument 'n'"):
        s(torch.ones(1), "3")
    with pytest.raises(RuntimeError, match="missing value for argument 'n'"):
        s(torch.ones(1))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return torch.relu(self.lin(x))


class Net(nn.Module):
    scale: torch.jit.Final[float]

    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(), Block()])
        self.norm = nn.LayerNorm(4)
        self.scale = 2.0
        self.register_buffer("offset", torch.ones(4))

    def forward(self, x, steps: int = 2):
        for b in self.blocks:
            x = b(x)
        for _ in range(steps):
            x = self.norm(x) + self.offset
        if self.training:
            x = x * self.scale
        return self.head(x)

    def head(self, x):
        return x.sum(-1)

    @torch.jit.export
    def embed(self, x):
        return self.blocks[0](x)

    @torch.jit.ignore
    def debug(self, x):
        return repr(x)  # Python only

    @torch.jit.unused
    def not_compiled(self, x):
        return {k: v for k, v in x}


def test_scripted_module_matches_eager_and_trains():
    torch.manual_seed(0)
    model = Net()
    scripted = torch.jit.script(model)
    x = torch.randn(3, 4)
    for mode in (True, False):
        model.train(mode)
        scripted.train(mode)
        torch.testing.assert_close(scripted(x), model(x))
        torch.testing.assert_close(scripted(x, 4), model(x, 4))
    torch.testing.assert_close(scripted.embed(x), model.embed(x))
    assert list(scripted.state_dict()) == list(model.state_dict())
    scripted(x).sum().backward()
    assert model.blocks[1].lin.weight.grad is not None
    assert isinstance(scripted.blocks[0], torch.jit.ScriptModule)  # user submodules compiled


def test_is_scripting_and_annotate():
    def f(x):
        y = torch.jit.annotate(list[int], [])
        y.append(1)
        if torch.jit.is_scripting():
            return x + len(y)
        return x

    assert torch.jit.script(f)(torch.zeros(1)).item() == 1.0
    assert not torch.jit.is_scripting()


def _refused(src_fn, match):
    with pytest.raises(torch.jit.NotSupportedError, match=match) as info:
        torch.jit.script(src_fn)
    return str(info.value)


def test_lambda_is_refused_with_the_line():
    def f(x):
        g = lambda: x  # noqa: E731
        return g()

    msg = _refused(f, "Lambda aren't supported")
    assert "g = lambda: x" in msg and "<--- HERE" in msg and "test_jit_script.py" in msg


def test_unsupported_constructs_are_refused():
    def gen(x):
        return sum(v for v in [x])

    def tries(x):
        try:
            return x
        except Exception:
            return x

    def with_block(x):
        with open("f"):
            return x

    def unknown_call(x):
        return sorted(x)

    _refused(gen, "Generator expressions")
    _refused(tries, "try blocks")
    _refused(with_block, "With statements")
    msg = _refused(unknown_call, "Python function 'sorted' is not supported")
    assert "return sorted(x)" in msg


def test_no_grad_block_is_accepted():
    def f(x):
        with torch.no_grad():
            y = x * 2
        return y + x

    x = torch.ones(2, requires_grad=True)
    out = torch.jit.script(f)(x)
    out.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_compilation_unit():
    cu = torch.jit.CompilationUnit(
        """
def add_one(x):
    return x + 1
"""
    )
    assert cu.add_one(torch.zeros(1)).item() == 1.0
