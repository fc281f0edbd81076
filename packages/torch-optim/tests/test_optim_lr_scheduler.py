"""Each lr scheduler against its closed-form lr sequence (two groups, base lrs 0.1 and 0.5)."""

import math
import warnings

import pytest

import torch
import torch.optim as optim
from torch.optim import lr_scheduler as sched

BASES = (0.1, 0.5)
EPOCHS = 25


def _optimizer(kind=optim.SGD, **kwargs):
    a = torch.zeros(2, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    return kind([{"params": [a]}, {"params": [b], "lr": BASES[1]}], lr=BASES[0], **kwargs)


def _run(opt, scheduler, epochs=EPOCHS):
    """The lrs of epochs 0..epochs-1, as the groups and get_last_lr() report them."""
    seen = []
    for _ in range(epochs):
        lrs = [group["lr"] for group in opt.param_groups]
        assert scheduler.get_last_lr() == pytest.approx(lrs, rel=1e-12)
        seen.append(lrs)
        opt.step()
        scheduler.step()
    return seen


def _check(seen, closed_form):
    for epoch, lrs in enumerate(seen):
        expected = [closed_form(base, epoch) for base in BASES]
        assert lrs == pytest.approx(expected, rel=1e-9, abs=1e-15), f"epoch {epoch}"


def _cosine(low, high, progress):
    return low + (high - low) * (1 + math.cos(math.pi * progress)) / 2


def test_lambda_lr():
    opt = _optimizer()
    scheduler = sched.LambdaLR(opt, lambda e: 0.9**e + 0.01 * e)
    _check(_run(opt, scheduler), lambda base, e: base * (0.9**e + 0.01 * e))


def test_lambda_lr_one_lambda_per_group():
    opt = _optimizer()
    scheduler = sched.LambdaLR(opt, [lambda e: 1 / (e + 1), lambda e: 0.5**e])
    seen = _run(opt, scheduler)
    for e, (a, b) in enumerate(seen):
        assert a == pytest.approx(BASES[0] / (e + 1)) and b == pytest.approx(BASES[1] * 0.5**e)
    with pytest.raises(ValueError, match="Expected 2"):
        sched.LambdaLR(_optimizer(), [lambda e: 1.0])


def test_multiplicative_lr():
    opt = _optimizer()
    scheduler = sched.MultiplicativeLR(opt, lambda e: 0.95)
    _check(_run(opt, scheduler), lambda base, e: base * 0.95**e)


def test_step_lr():
    opt = _optimizer()
    scheduler = sched.StepLR(opt, step_size=3, gamma=0.5)
    _check(_run(opt, scheduler), lambda base, e: base * 0.5 ** (e // 3))


def test_multi_step_lr_counts_repeated_milestones():
    opt = _optimizer()
    scheduler = sched.MultiStepLR(opt, milestones=[9, 2, 5, 5], gamma=0.3)

    def closed_form(base, e):
        return base * 0.3 ** sum(m <= e for m in (2, 5, 5, 9))

    _check(_run(opt, scheduler), closed_form)


def test_exponential_lr():
    opt = _optimizer()
    scheduler = sched.ExponentialLR(opt, gamma=0.8)
    _check(_run(opt, scheduler), lambda base, e: base * 0.8**e)


@pytest.mark.parametrize("eta_min", [0.0, 0.01])
def test_cosine_annealing_lr_goes_down_and_back_up(eta_min):
    opt = _optimizer()
    scheduler = sched.CosineAnnealingLR(opt, T_max=7, eta_min=eta_min)
    _check(_run(opt, scheduler), lambda base, e: _cosine(eta_min, base, e / 7))


@pytest.mark.parametrize("t_0,t_mult", [(4, 1), (3, 2)])
def test_cosine_annealing_warm_restarts(t_0, t_mult):
    opt = _optimizer()
    scheduler = sched.CosineAnnealingWarmRestarts(opt, T_0=t_0, T_mult=t_mult, eta_min=0.001)

    def closed_form(base, e):
        period = t_0
        while e >= period:  # the restarts before epoch e
            e -= period
            period *= t_mult
        return _cosine(0.001, base, e / period)

    _check(_run(opt, scheduler), closed_form)


def test_cosine_annealing_warm_restarts_with_fractional_epochs():
    opt = _optimizer()
    scheduler = sched.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
    opt.step()
    for epoch, t_cur, t_i in [(0.5, 0.5, 2), (1.5, 1.5, 2), (2.5, 0.5, 4), (7.0, 1.0, 8)]:
        scheduler.step(epoch)
        assert scheduler.get_last_lr()[0] == pytest.approx(_cosine(0, BASES[0], t_cur / t_i))
        assert scheduler.last_epoch == math.floor(epoch)


@pytest.mark.parametrize("total_steps,pct_start", [(30, 0.3), (20, 0.5)])
def test_one_cycle_lr_cosine(total_steps, pct_start):
    opt = _optimizer(momentum=0.9)
    scheduler = sched.OneCycleLR(
        opt, max_lr=[1.0, 2.0], total_steps=total_steps, pct_start=pct_start
    )
    rise = pct_start * total_steps - 1
    momenta = []

    def closed_form(top, step):
        start, end = top / 25, top / 25 / 1e4
        if step <= rise:
            return _cosine(top, start, step / rise)
        return _cosine(end, top, (step - rise) / (total_steps - 1 - rise))

    for step in range(total_steps):
        lrs = [group["lr"] for group in opt.param_groups]
        assert lrs == pytest.approx([closed_form(1.0, step), closed_form(2.0, step)])
        momenta.append(opt.param_groups[0]["momentum"])
        opt.step()
        if step < total_steps - 1:
            scheduler.step()
    # momentum goes the other way: max_momentum -> base_momentum -> max_momentum
    assert momenta[0] == pytest.approx(0.95) and momenta[-1] == pytest.approx(0.95)
    assert min(momenta) == pytest.approx(0.85)
    assert momenta.index(min(momenta)) == round(rise)
    scheduler.step()  # step == total_steps is still allowed
    with pytest.raises(ValueError, match="Tried to step (31|21) times"):
        scheduler.step()


def test_one_cycle_lr_three_phase_linear_and_adam_betas():
    opt = _optimizer(optim.Adam)
    scheduler = sched.OneCycleLR(
        opt,
        max_lr=1.0,
        epochs=2,
        steps_per_epoch=10,
        three_phase=True,
        anneal_strategy="linear",
        div_factor=10.0,
        final_div_factor=100.0,
    )
    start, rise = 0.1, 0.3 * 20 - 1  # phases end at steps 5, 10 and 19

    def expected(step):
        if step <= rise:
            return start + (1.0 - start) * step / rise
        if step <= 2 * rise:
            return 1.0 + (start - 1.0) * (step - rise) / rise
        return start + (start / 100 - start) * (step - 2 * rise) / (19 - 2 * rise)

    for step in range(20):
        assert opt.param_groups[0]["lr"] == pytest.approx(expected(step))
        beta1 = opt.param_groups[0]["betas"][0]
        assert 0.85 - 1e-12 <= beta1 <= 0.95 + 1e-12
        assert opt.param_groups[0]["betas"][1] == 0.999
        opt.step()
        scheduler.step()


def test_linear_lr():
    opt = _optimizer()
    scheduler = sched.LinearLR(opt, start_factor=0.25, end_factor=0.9, total_iters=6)
    _check(_run(opt, scheduler), lambda base, e: base * (0.25 + 0.65 * min(e, 6) / 6))


def test_constant_lr():
    opt = _optimizer()
    scheduler = sched.ConstantLR(opt, factor=0.5, total_iters=4)
    _check(_run(opt, scheduler), lambda base, e: base * (0.5 if e < 4 else 1.0))


def test_polynomial_lr():
    opt = _optimizer()
    scheduler = sched.PolynomialLR(opt, total_iters=8, power=2.0)
    _check(_run(opt, scheduler), lambda base, e: base * (1 - min(e, 8) / 8) ** 2)


def test_sequential_lr():
    opt = _optimizer()
    warmup = sched.LinearLR(opt, start_factor=0.1, total_iters=3)
    decay = sched.ExponentialLR(opt, gamma=0.9)
    steps = sched.StepLR(opt, step_size=2, gamma=0.5)
    scheduler = sched.SequentialLR(opt, [warmup, decay, steps], milestones=[4, 10])

    def closed_form(base, e):
        if e < 4:
            return base * (0.1 + 0.9 * min(e, 3) / 3)
        if e < 10:
            return base * 0.9 ** (e - 4)
        return base * 0.5 ** ((e - 10) // 2)

    _check(_run(opt, scheduler), closed_form)


def test_chained_scheduler_multiplies_the_factors():
    opt = _optimizer()
    warmup = sched.LinearLR(opt, start_factor=0.1, total_iters=3)
    decay = sched.ExponentialLR(opt, gamma=0.9)
    scheduler = sched.ChainedScheduler([warmup, decay])
    _check(_run(opt, scheduler), lambda base, e: base * (0.1 + 0.9 * min(e, 3) / 3) * 0.9**e)


def test_reduce_lr_on_plateau():
    opt = _optimizer()
    scheduler = sched.ReduceLROnPlateau(
        opt, patience=2, factor=0.5, cooldown=1, threshold=0.1, min_lr=[0.01, 0.2]
    )
    # (metric, lrs after the step): "better" means below best * (1 - 0.1)
    script = [
        (10.0, (0.1, 0.5)),
        (9.5, (0.1, 0.5)),  # not 10% better: bad epoch 1
        (9.2, (0.1, 0.5)),  # 2
        (9.3, (0.05, 0.25)),  # 3 > patience: reduce, cooldown 1
        (9.3, (0.05, 0.25)),  # in cooldown: not counted
        (9.3, (0.05, 0.25)),  # 1
        (9.3, (0.05, 0.25)),  # 2
        (9.3, (0.025, 0.2)),  # reduce; group 1 stops at its min_lr
        (5.0, (0.025, 0.2)),  # better: best = 5
    ]
    for metric, lrs in script:
        scheduler.step(torch.tensor(metric))
        assert scheduler.get_last_lr() == pytest.approx(list(lrs))
        assert [g["lr"] for g in opt.param_groups] == pytest.approx(list(lrs))
    assert scheduler.best == 5.0


def test_reduce_lr_on_plateau_max_mode_absolute_threshold():
    opt = _optimizer()
    scheduler = sched.ReduceLROnPlateau(
        opt, mode="max", threshold_mode="abs", threshold=0.5, patience=1
    )
    lrs = []
    for metric in [1.0, 1.2, 1.6, 1.7, 1.8, 3.0, 3.0, 3.0]:
        scheduler.step(metric)
        lrs.append(scheduler.get_last_lr()[0])
    assert lrs == pytest.approx([0.1, 0.1, 0.1, 0.1, 0.01, 0.01, 0.01, 0.001])


def test_state_dict_round_trip_resumes_the_schedule():
    opt = _optimizer()
    scheduler = sched.StepLR(opt, step_size=2, gamma=0.5)
    _run(opt, scheduler, epochs=3)
    saved_opt, saved = opt.state_dict(), scheduler.state_dict()
    assert "optimizer" not in saved and saved["last_epoch"] == 3
    seen = _run(opt, scheduler, epochs=4)

    fresh = _optimizer()
    fresh.load_state_dict(saved_opt)  # the groups' lr and initial_lr at the save
    resumed = sched.StepLR(fresh, step_size=7, gamma=0.9)
    resumed.load_state_dict(saved)
    assert resumed.step_size == 2 and resumed.gamma == 0.5
    assert _run(fresh, resumed, epochs=4) == seen


def test_composite_state_dict_holds_its_parts():
    opt = _optimizer()
    parts = [sched.LinearLR(opt, start_factor=0.1, total_iters=3), sched.ExponentialLR(opt, 0.9)]
    scheduler = sched.SequentialLR(opt, parts, milestones=[3])
    _run(opt, scheduler, epochs=5)
    state = scheduler.state_dict()
    assert [s["last_epoch"] for s in state["_schedulers"]] == [parts[0].last_epoch, 2]
    parts[1].last_epoch = 99
    scheduler.load_state_dict(state)
    assert parts[1].last_epoch == 2 and "_schedulers" in state


def test_resuming_with_last_epoch_needs_initial_lr():
    opt = _optimizer()
    with pytest.raises(KeyError, match="initial_lr"):
        sched.StepLR(opt, step_size=2, last_epoch=4)
    sched.StepLR(opt, step_size=2)  # records group["initial_lr"]
    opt.param_groups[0]["lr"] = 123.0
    resumed = sched.StepLR(opt, step_size=2, last_epoch=4)
    assert resumed.base_lrs == list(BASES)
    assert resumed.last_epoch == 5


def test_lambda_lr_state_dict_keeps_callable_objects_state():
    class Decay:
        def __init__(self, rate):
            self.rate = rate

        def __call__(self, epoch):
            return self.rate**epoch

    opt = _optimizer()
    scheduler = sched.LambdaLR(opt, [Decay(0.5), lambda e: 1.0])
    state = scheduler.state_dict()
    assert state["lr_lambdas"] == [{"rate": 0.5}, None]
    other = sched.LambdaLR(_optimizer(), [Decay(0.9), lambda e: 1.0])
    other.load_state_dict(state)
    assert other.lr_lambdas[0].rate == 0.5


def test_warns_when_stepped_before_the_optimizer():
    opt = _optimizer()
    scheduler = sched.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match=r"before optimizer.step\(\)"):
        scheduler.step()
    opt = _optimizer()
    scheduler = sched.StepLR(opt, step_size=2)
    opt.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scheduler.step()


def test_epoch_argument_is_deprecated_and_uses_the_closed_form():
    opt = _optimizer()
    scheduler = sched.ExponentialLR(opt, gamma=0.5)
    opt.step()
    with pytest.warns(UserWarning, match="deprecated"):
        scheduler.step(3)
    assert scheduler.get_last_lr() == pytest.approx([b * 0.125 for b in BASES])


@pytest.mark.parametrize(
    "make,error,message",
    [
        (lambda o: sched.StepLR(object(), 2), TypeError, "is not an Optimizer"),
        (lambda o: sched.ConstantLR(o, factor=2.0), ValueError, "between 0 and 1"),
        (lambda o: sched.LinearLR(o, start_factor=0), ValueError, "greater than 0"),
        (lambda o: sched.LinearLR(o, end_factor=1.5), ValueError, "between 0 and 1"),
        (lambda o: sched.CosineAnnealingWarmRestarts(o, T_0=0), ValueError, "T_0"),
        (lambda o: sched.CosineAnnealingWarmRestarts(o, 2, T_mult=0), ValueError, "T_mult"),
        (lambda o: sched.OneCycleLR(o, 1.0), ValueError, "total_steps OR"),
        (lambda o: sched.OneCycleLR(o, 1.0, total_steps=0), ValueError, "total_steps"),
        (lambda o: sched.OneCycleLR(o, 1.0, 10, pct_start=2), ValueError, "pct_start"),
        (lambda o: sched.OneCycleLR(o, 1.0, 10, anneal_strategy="x"), ValueError, "anneal"),
        (lambda o: sched.OneCycleLR(o, [1.0], 10), ValueError, "Expected 2 values"),
        (lambda o: sched.ReduceLROnPlateau(o, factor=1.0), ValueError, "Factor should be"),
        (lambda o: sched.ReduceLROnPlateau(o, mode="up"), ValueError, "mode up is unknown"),
        (lambda o: sched.ReduceLROnPlateau(o, threshold_mode="x"), ValueError, "unknown"),
        (lambda o: sched.ReduceLROnPlateau(o, min_lr=[0.1]), ValueError, "Expected 2 values"),
        (lambda o: sched.SequentialLR(o, [sched.StepLR(o, 2)], [3]), ValueError, "milestone"),
        (lambda o: sched.ChainedScheduler([]), ValueError, "at least one"),
        (
            lambda o: sched.ChainedScheduler([sched.ReduceLROnPlateau(o)]),
            ValueError,
            "ReduceLROnPlateau",
        ),
        (
            lambda o: sched.SequentialLR(o, [sched.StepLR(_optimizer(), 2)], []),
            ValueError,
            "same optimizer",
        ),
    ],
)
def test_errors(make, error, message):
    with pytest.raises(error, match=message):
        make(_optimizer())


def test_one_cycle_needs_momentum():
    opt = _optimizer(optim.Adagrad)
    with pytest.raises(ValueError, match="momentum or beta1"):
        sched.OneCycleLR(opt, 1.0, total_steps=10)
    sched.OneCycleLR(opt, 1.0, total_steps=10, cycle_momentum=False)
