"""What every optimizer shares: parameter groups, weight decay and its precedence, clipping order,
skipped parameters, state_dict round trips, learning-rate handling, minimize, instrumentation, errors."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework import instrument
from minipaddle.framework.errors import InvalidArgument, PreconditionNotMet, Unimplemented
from minipaddle.framework.parameter import create_parameter
from tests.ops.opcheck import torch_or_skip

from .common import B0, W0, assert_same_history, loss_of, make_params, run_paddle, run_torch

optim = paddle.optimizer


def _param(values, name=None, **attrs):
    values = np.asarray(values, dtype="float64")
    p = create_parameter(list(values.shape), "float64", attr=paddle.ParamAttr(name=name, **attrs))
    p.set_value(values)
    return p


def _grad(p, values):
    p.grad = paddle.to_tensor(np.asarray(values, dtype="float64"))


# ---- parameter groups --------------------------------------------------------------------
def test_param_groups_scale_lr_and_set_weight_decay_like_torch():
    torch = torch_or_skip()
    got = run_paddle(lambda ps: optim.SGD(0.2, parameters=[{"params": [ps[0]], "learning_rate": 0.5,
                                                             "weight_decay": 0.1},
                                                            {"params": [ps[1]]}], weight_decay=0.01))
    want = run_torch(torch, lambda ps: torch.optim.SGD([{"params": [ps[0]], "lr": 0.1, "weight_decay": 0.1},
                                                        {"params": [ps[1]]}], lr=0.2, weight_decay=0.01))
    assert_same_history(got, want)


def test_param_groups_override_hyper_parameters():
    torch = torch_or_skip()
    got = run_paddle(lambda ps: optim.Adam(0.05, parameters=[{"params": [ps[0]], "beta1": 0.5, "epsilon": 1e-3},
                                                             {"params": [ps[1]]}]))
    want = run_torch(torch, lambda ps: torch.optim.Adam([{"params": [ps[0]], "betas": (0.5, 0.999), "eps": 1e-3},
                                                         {"params": [ps[1]]}], lr=0.05))
    assert_same_history(got, want)


def test_adamw_group_weight_decay_is_the_decoupled_coefficient():
    torch = torch_or_skip()
    got = run_paddle(lambda ps: optim.AdamW(0.05, parameters=[{"params": [ps[0]], "weight_decay": 0.5},
                                                              {"params": [ps[1]]}], weight_decay=0.0))
    want = run_torch(torch, lambda ps: torch.optim.AdamW([{"params": [ps[0]], "weight_decay": 0.5},
                                                          {"params": [ps[1]]}], lr=0.05, weight_decay=0.0))
    assert_same_history(got, want)


# ---- weight decay, clipping, skipped parameters ------------------------------------------
def test_parameters_own_regularizer_wins_over_the_optimizers():
    w = _param([0.5, -2.0], regularizer=paddle.regularizer.L1Decay(0.1))
    b = _param([1.0, -1.0])
    _grad(w, [1.0, 1.0])
    _grad(b, [1.0, 1.0])
    optim.SGD(0.1, parameters=[w, b], weight_decay=paddle.regularizer.L2Decay(0.5)).step()
    np.testing.assert_allclose(w.numpy(), [0.5, -2.0] - 0.1 * (1.0 + 0.1 * np.sign([0.5, -2.0])))
    np.testing.assert_allclose(b.numpy(), [1.0, -1.0] - 0.1 * (1.0 + 0.5 * np.array([1.0, -1.0])))


def test_regularizer_leaves_the_visible_grad_untouched():
    w = _param([1.0, 2.0])
    _grad(w, [0.5, 0.5])
    optim.SGD(0.1, parameters=[w], weight_decay=1.0).step()
    np.testing.assert_allclose(w.grad.numpy(), [0.5, 0.5])


def test_gradients_are_clipped_before_weight_decay_is_added():
    w = _param([1.0, -3.0])
    _grad(w, [5.0, -0.001])
    optim.SGD(0.1, parameters=[w], weight_decay=0.5, grad_clip=paddle.nn.ClipGradByValue(0.01)).step()
    np.testing.assert_allclose(w.numpy(), [1.0, -3.0] - 0.1 * (np.array([0.01, -0.001]) + 0.5 * np.array([1.0, -3.0])))


def test_stop_gradient_and_gradless_parameters_are_skipped():
    frozen, no_grad, live = _param([1.0]), _param([2.0]), _param([3.0])
    _grad(frozen, [1.0])
    _grad(live, [1.0])
    frozen.stop_gradient = True
    opt = optim.Adam(0.1, parameters=[frozen, no_grad, live])
    opt.step()
    assert frozen.numpy()[0] == 1.0 and no_grad.numpy()[0] == 2.0 and live.numpy()[0] != 3.0
    assert all(live.name in k for k in opt.state_dict())  # accumulators only for the updated one


def test_step_bumps_the_parameter_version():
    w = _param([1.0, 2.0])
    _grad(w, [1.0, 1.0])
    before = w.inplace_version
    opt = optim.SGD(0.1, parameters=[w])
    opt.step()
    opt.step()
    assert w.inplace_version == before + 2


@pytest.mark.parametrize("set_to_zero", [True, False])
def test_clear_grad(set_to_zero):
    w = _param([1.0, 2.0])
    _grad(w, [1.0, 1.0])
    opt = optim.SGD(0.1, parameters=[w])
    opt.clear_grad(set_to_zero=set_to_zero)
    if set_to_zero:
        np.testing.assert_array_equal(w.grad.numpy(), [0.0, 0.0])
    else:
        assert w.grad is None
    opt.clear_gradients()  # Paddle's alias


# ---- state dict ----------------------------------------------------------------------------
def _named_params():
    return [_param(W0, name="fc.w_0"), _param(B0, name="fc.b_0")]


def test_state_dict_has_paddle_names_and_round_trips_to_resume_identically():
    params = _named_params()
    opt = optim.Adam(0.05, parameters=params)
    run_paddle(lambda ps: opt, steps=3, params=params)
    saved_values = [p.numpy().copy() for p in params]
    state = opt.state_dict()
    assert {k.rsplit("_", 1)[0] for k in state} == {f"fc.{x}_0_{k}" for x in "wb" for k in
                                                    ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc")}
    beta1_pow = next(v for k, v in state.items() if k.startswith("fc.w_0_beta1_pow_acc"))
    np.testing.assert_allclose(beta1_pow.numpy(), [0.9 ** 4])
    expected = run_paddle(lambda ps: opt, steps=3, params=params)

    fresh = _named_params()  # a rebuilt model: same names, the saved values
    for p, v in zip(fresh, saved_values):
        p.set_value(v)
    opt2 = optim.Adam(0.05, parameters=fresh)
    opt2.set_state_dict(state)
    assert set(opt2.state_dict()) == set(state)  # loaded but not yet used: still saved
    assert_same_history(run_paddle(lambda ps: opt2, steps=3, params=fresh), expected, rtol=0, atol=0)


def test_set_state_dict_loads_into_accumulators_that_already_exist():
    params = _named_params()
    opt = optim.Momentum(0.1, parameters=params)
    run_paddle(lambda ps: opt, steps=2, params=params)
    state = {k: paddle.to_tensor(np.full(v.shape, 7.0)) for k, v in opt.state_dict().items()}
    opt.set_state_dict(state)
    for v in opt.state_dict().values():
        np.testing.assert_array_equal(v.numpy(), 7.0)


def test_state_dict_saves_and_restores_the_scheduler():
    params = _named_params()
    sched = optim.lr.ExponentialDecay(0.1, gamma=0.5)
    opt = optim.SGD(sched, parameters=params)
    for _ in range(3):
        sched.step()
    state = opt.state_dict()
    assert state["LR_Scheduler"] == {"last_epoch": 3, "last_lr": pytest.approx(0.1 * 0.5 ** 3)}
    sched2 = optim.lr.ExponentialDecay(0.1, gamma=0.5)
    opt2 = optim.SGD(sched2, parameters=params)
    opt2.set_state_dict(state)
    assert sched2.last_epoch == 3 and opt2.get_lr() == pytest.approx(0.0125)


def test_set_state_dict_with_foreign_names_raises():
    params = _named_params()
    opt = optim.Adam(0.05, parameters=params)
    state = {"other_0.w_0_moment1_0": paddle.zeros([3, 2], "float64")}
    with pytest.raises(InvalidArgument, match="none of the 1 accumulators"):
        opt.set_state_dict(state)


def test_set_state_dict_rejects_a_wrong_shape():
    params = _named_params()
    opt = optim.Momentum(0.1, parameters=params)
    opt.set_state_dict({"fc.w_0_velocity_0": paddle.zeros([5], "float64")})
    _grad(params[0], np.ones((3, 2)))
    with pytest.raises(InvalidArgument, match="has shape \\[5\\]"):
        opt.step()


def test_optimizer_name_prefixes_accumulator_names():
    params = _named_params()
    opt = optim.Momentum(0.1, parameters=params, name="opt")
    run_paddle(lambda ps: opt, steps=1, params=params)
    assert all("_opt_velocity_" in k for k in opt.state_dict())


# ---- learning rate ---------------------------------------------------------------------------
def test_get_lr_set_lr_and_set_lr_scheduler():
    opt = optim.SGD(0.1, parameters=make_params())
    assert opt.get_lr() == 0.1
    opt.set_lr(0.5)
    assert opt.get_lr() == 0.5
    sched = optim.lr.StepDecay(1.0, step_size=1, gamma=0.5)
    opt.set_lr_scheduler(sched)
    sched.step()
    assert opt.get_lr() == 0.5
    with pytest.raises(PreconditionNotMet, match="driven by an LRScheduler"):
        opt.set_lr(0.3)


def test_set_lr_changes_the_next_steps():
    w = _param([1.0])
    opt = optim.SGD(0.1, parameters=[w])
    opt.set_lr(1.0)
    _grad(w, [0.25])
    opt.step()
    np.testing.assert_allclose(w.numpy(), [0.75])


# ---- minimize --------------------------------------------------------------------------------
def test_minimize_runs_backward_and_step():
    params = make_params()
    opt = optim.SGD(0.3, parameters=params)
    ops, params_grads = opt.minimize(loss_of(*params))
    assert ops == [] and [p for p, _ in params_grads] == params
    reference = make_params()
    loss_of(*reference).backward()
    optim.SGD(0.3, parameters=reference).step()
    for p, r in zip(params, reference):
        np.testing.assert_allclose(p.numpy(), r.numpy())


def test_minimize_after_backward_does_not_backward_again():
    params, reference = make_params(), make_params()
    loss = loss_of(*params)
    loss.backward()
    optim.SGD(0.3, parameters=params).minimize(loss)
    loss_of(*reference).backward()
    optim.SGD(0.3, parameters=reference).step()
    for p, r in zip(params, reference):
        np.testing.assert_allclose(p.numpy(), r.numpy())


def test_minimize_honours_parameters_and_no_grad_set():
    params = make_params()
    opt = optim.SGD(0.3, parameters=params)
    _, params_grads = opt.minimize(loss_of(*params), no_grad_set={params[1].name})
    assert [p for p, _ in params_grads] == [params[0]]
    np.testing.assert_array_equal(params[1].numpy(), B0)


# ---- instrumentation ---------------------------------------------------------------------------
def test_optimizer_update_events_when_subscribed():
    w = _param([3.0, 4.0])
    _grad(w, [3.0, 4.0])
    events = []
    unsubscribe = instrument.subscribe(events.append)
    try:
        optim.SGD(0.1, parameters=[w]).step()
    finally:
        unsubscribe()
    assert [e.kind for e in events] == ["optimizer_step_begin", "optimizer_update", "optimizer_step_end"]
    assert events[1] == instrument.OptimizerUpdate("SGD", w.name, 0.1, grad_norm=pytest.approx(5.0),
                                                   update_norm=pytest.approx(0.5), tensor=w)


def test_a_grad_of_the_wrong_shape_raises():
    w = _param([1.0, 2.0])
    _grad(w, [1.0, 2.0, 3.0])
    with pytest.raises(InvalidArgument, match="its grad has shape \\[3\\]"):
        optim.SGD(0.1, parameters=[w]).step()


def test_a_parameter_regularizer_must_be_a_decay():
    w = _param([1.0, 2.0], regularizer=0.1)
    with pytest.raises(InvalidArgument, match="expected an L1Decay or L2Decay"):
        optim.SGD(0.1, parameters=[w])


# ---- errors ------------------------------------------------------------------------------------
@pytest.mark.parametrize("make_kwargs, message", [
    (lambda ps: {"learning_rate": 0.1}, "parameters is None"),
    (lambda ps: {"learning_rate": "0.1", "parameters": ps}, "learning_rate must be a float or an LRScheduler, got str"),
    (lambda ps: {"learning_rate": -1.0, "parameters": ps}, "learning_rate must be >= 0"),
    (lambda ps: {"learning_rate": 0.1, "parameters": []}, "empty list"),
    (lambda ps: {"learning_rate": 0.1, "parameters": ps[0]}, "got a single Tensor"),
    (lambda ps: {"learning_rate": 0.1, "parameters": {"params": ps}}, "got a dict"),
    (lambda ps: {"learning_rate": 0.1, "parameters": [1.0]}, "must hold Tensors"),
    (lambda ps: {"learning_rate": 0.1, "parameters": [ps[0], {"params": [ps[1]]}]}, "mixes Tensors and dicts"),
    (lambda ps: {"learning_rate": 0.1, "parameters": ps, "weight_decay": "l2"}, "weight_decay must be a float or a"),
    (lambda ps: {"learning_rate": 0.1, "parameters": ps, "grad_clip": 1.0}, "grad_clip must be a ClipGradByValue"),
    (lambda ps: {"learning_rate": 0.1, "parameters": [{"lr": 0.1}]}, "no 'params' key"),
    (lambda ps: {"learning_rate": 0.1, "parameters": [{"params": ps, "lr": 0.1}]}, "unknown keys \\['lr'\\]"),
    (lambda ps: {"learning_rate": 0.1, "parameters": [{"params": ps, "learning_rate": -2}]}, "number >= 0"),
    (lambda ps: {"learning_rate": 0.1, "parameters": [ps[0], ps[0]]}, "given more than once"),
])
def test_bad_arguments_raise_clear_errors(make_kwargs, message):
    with pytest.raises(InvalidArgument, match=message):
        optim.SGD(**make_kwargs(make_params()))


def test_set_lr_and_set_lr_scheduler_check_types():
    opt = optim.SGD(0.1, parameters=make_params())
    with pytest.raises(InvalidArgument, match="value must be a float"):
        opt.set_lr("fast")
    with pytest.raises(InvalidArgument, match="scheduler must be an LRScheduler"):
        opt.set_lr_scheduler(0.1)


def test_the_base_class_cannot_step():
    params = make_params()
    loss_of(*params).backward()
    with pytest.raises(Unimplemented, match="no update rule"):
        optim.Optimizer(0.1, parameters=params).step()


def test_optimizer_specific_argument_errors():
    params = make_params()
    with pytest.raises(InvalidArgument, match="beta1 must be in \\[0, 1\\)"):
        optim.Adam(0.1, beta1=1.5, parameters=params)
    with pytest.raises(InvalidArgument, match="momentum must be a number >= 0"):
        optim.Momentum(0.1, momentum=-0.1, parameters=params)
    with pytest.raises(InvalidArgument, match="weight_decay must be a float"):
        optim.AdamW(0.1, weight_decay=paddle.regularizer.L2Decay(0.1), parameters=params)
    with pytest.raises(InvalidArgument, match="rho must be a number >= 0"):
        optim.RMSProp(0.1, rho=-1, parameters=params)
    with pytest.raises(InvalidArgument, match="lamb_weight_decay"):
        optim.Lamb(0.1, lamb_weight_decay="x", parameters=params)


def test_step_records_no_graph_and_restores_the_grad_mode():
    seen = []
    params = make_params()
    loss_of(*params).backward()
    opt = optim.AdamW(0.1, parameters=params, lr_ratio=lambda p: seen.append(paddle.is_grad_enabled()) or 1.0)
    opt.step()
    assert seen == [False, False] and paddle.is_grad_enabled()


# ---- static mode: no parameters= -------------------------------------------------------------
def test_static_optimizer_without_parameters_trains_every_trainable_parameter_of_the_program():
    paddle.enable_static()
    paddle.seed(0)  # a fixed start: with some random weights one step of lr 0.1 overshoots
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, 2], "float32")
            loss = paddle.mean(paddle.static.nn.fc(paddle.static.nn.fc(x, 3), 1) ** 2)
            opt = optim.SGD(learning_rate=0.01)
            _, params_grads = opt.minimize(loss)
        assert sorted(p.name for p, _ in params_grads) == sorted(p.name for p in main.all_parameters())
        assert len(params_grads) == 4
        exe = paddle.static.Executor()
        exe.run(startup)
        feed = {"x": np.ones((4, 2), np.float32)}
        first = float(exe.run(main, feed=feed, fetch_list=[loss])[0])
        later = float(exe.run(main, feed=feed, fetch_list=[loss])[0])
        assert later < first
    finally:
        paddle.disable_static()
    with pytest.raises(PreconditionNotMet, match="step: this SGD was made in static mode without parameters="):
        opt.step()
