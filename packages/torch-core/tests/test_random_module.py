"""torch.random: the default generator's functions and fork_rng (values checked against
plain re-seeding, which is what PyTorch's contract says they equal)."""

import torch


def test_same_functions_as_torch():
    for name in ("manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state"):
        assert callable(getattr(torch.random, name))
    assert torch.random.manual_seed(3).initial_seed() == 3 == torch.random.initial_seed()


def test_fork_rng_leaves_the_stream_where_it_was():
    torch.manual_seed(0)
    expected = torch.rand(4)
    torch.manual_seed(0)
    with torch.random.fork_rng():
        inside = torch.rand(4)
        torch.manual_seed(123)
        torch.rand(10)
    after = torch.rand(4)
    assert torch.equal(inside, expected) and torch.equal(after, expected)


def test_fork_rng_disabled_does_nothing():
    torch.manual_seed(0)
    first = torch.rand(2)
    torch.manual_seed(0)
    with torch.random.fork_rng(enabled=False):
        torch.rand(2)
    assert not torch.equal(torch.rand(2), first)


def test_fork_rng_restores_after_an_exception():
    torch.manual_seed(1)
    expected = torch.rand(3)
    torch.manual_seed(1)
    try:
        with torch.random.fork_rng(devices=[]):
            torch.rand(5)
            raise KeyError
    except KeyError:
        pass
    assert torch.equal(torch.rand(3), expected)
