"""Golden cases: x.grad, stop_gradient on non-leaf tensors, in-place ops on gradients, Tensor.gradient(),
and what BatchNorm counts as parameters."""
from .harness import case, outcome


def _leaf_with_grad(paddle):
    w = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    (w * w).sum().backward()
    return w


@case
def grad_of_a_leaf_is_a_leaf_that_does_not_stop_gradient(paddle):
    w = _leaf_with_grad(paddle)
    g = w.grad
    return {"grad": g, "stop_gradient": g.stop_gradient, "is_leaf": g.is_leaf,
            "grad * 2 stop_gradient": (g * 2).stop_gradient}


@case
def inplace_ops_on_a_grad_outside_no_grad_raise(paddle):
    w = _leaf_with_grad(paddle)

    def setitem():
        w.grad[0] = 5.0

    return {"scale_": outcome(lambda: w.grad.scale_(2.0)), "zero_": outcome(lambda: w.grad.zero_()),
            "add_": outcome(lambda: w.grad.add_(paddle.to_tensor([1.0, 1.0]))),
            "multiply_": outcome(lambda: w.grad.multiply_(paddle.to_tensor([2.0, 2.0]))),
            "setitem": outcome(setitem)}


@case
def inplace_ops_on_a_grad_inside_no_grad_work(paddle):
    w = _leaf_with_grad(paddle)
    with paddle.no_grad():
        w.grad.scale_(2.0)
        scaled = w.grad.numpy().copy()
        w.grad.zero_()
    return {"scaled": scaled, "zeroed": w.grad}


@case
def inplace_op_on_a_trainable_leaf(paddle):
    v = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    outside = outcome(lambda: v.add_(paddle.to_tensor([1.0, 1.0])))
    w = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    with paddle.no_grad():
        w.add_(paddle.to_tensor([1.0, 1.0]))
    return {"outside no_grad": outside, "inside no_grad": w}


@case
def stop_gradient_true_on_a_non_leaf_detaches_it(paddle):
    a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    h = a * 3
    h.stop_gradient = True
    (h * a).sum().backward()
    return {"a.grad": a.grad, "h.grad": h.grad, "h.is_leaf": h.is_leaf}


@case
def stop_gradient_set_back_to_false_reconnects(paddle):
    a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    h = a * 3
    h.stop_gradient = True
    h.stop_gradient = False
    (h * 1).sum().backward()
    return {"a.grad": a.grad, "h.grad": h.grad}


@case
def gradient_is_a_numpy_array(paddle):
    w = _leaf_with_grad(paddle)
    g = w.gradient()
    fresh = paddle.to_tensor([1.0], stop_gradient=False)
    return {"gradient": g, "is ndarray": type(g).__name__ == "ndarray", "before backward": fresh.gradient()}


@case
def clear_gradient(paddle):
    w = _leaf_with_grad(paddle)
    w.clear_gradient()
    zeroed = w.grad
    v = _leaf_with_grad(paddle)
    v.clear_gradient(False)
    return {"set_to_zero": zeroed, "dropped": v.grad}


@case
def batch_norm_running_stats_are_parameters(paddle):
    bn = paddle.nn.BatchNorm2D(3)
    return {"len": len(bn.parameters()),
            "named": [[n, list(p.shape), p.stop_gradient, p.trainable] for n, p in bn.named_parameters()],
            "buffers": [n for n, _ in bn.named_buffers()],
            "state_dict": sorted(bn.state_dict().keys()),
            "BatchNorm1D": len(paddle.nn.BatchNorm1D(3).parameters()),
            "BatchNorm": len(paddle.nn.BatchNorm(3).parameters()),
            "LayerNorm": len(paddle.nn.LayerNorm(3).parameters())}


@case
def optimizer_skips_batch_norm_running_stats(paddle):
    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            weight = paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.1))
            self.conv = paddle.nn.Conv2D(1, 2, 3, weight_attr=weight)
            self.bn = paddle.nn.BatchNorm2D(2)

        def forward(self, x):
            return self.bn(self.conv(x))

    net = Net()
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    x = paddle.to_tensor([[[[float((i * 7 + j * 3) % 5) for j in range(5)] for i in range(5)]]] * 2)
    net(x).mean().backward()
    opt.step()
    return {"params": len(net.parameters()), "mean grad": net.bn._mean.grad,
            "running mean": net.bn._mean, "running var": net.bn._variance}


@case
def summary_counts_batch_norm_statistics_as_non_trainable(paddle):
    net = paddle.nn.Sequential(paddle.nn.Conv2D(1, 2, 3), paddle.nn.BatchNorm2D(2))
    info = paddle.summary(net, (1, 1, 5, 5))
    return {k: int(v) for k, v in info.items()}


@case
def retain_grads_keeps_a_non_leaf_gradient(paddle):
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * 3
    z = x * 2
    y.retain_grads()
    x.retain_grads()  # a leaf: keeps its grad anyway
    (y * y).sum().backward(retain_graph=True)
    first = y.grad.numpy().copy()
    (y * y).sum().backward()
    return {"first": first, "second": y.grad, "x.grad": x.grad, "y.grad.stop_gradient": y.grad.stop_gradient,
            "not retained": z.grad is None}


@case
def a_grad_held_across_clear_grad_reads_zeros_then_the_next_gradient(paddle):
    w = _leaf_with_grad(paddle)
    held = w.grad
    w.clear_grad()
    zeros = held.numpy().copy()
    (w * 3).sum().backward()
    first_held = held.numpy().copy()
    after = w.grad.numpy().copy()
    w.clear_grad()
    with paddle.no_grad():
        w.grad.add_(paddle.to_tensor([1.0, 1.0]))   # written into by hand after the clear
    (w * 3).sum().backward()
    replaced = w.grad.numpy().copy()
    held = w.grad
    (w * 3).sum().backward()                        # no clear: accumulates, in the grad held too
    return {"zeros": zeros, "after backward": after, "held before the clear": first_held, "replaced": replaced,
            "accumulated": w.grad, "held while accumulating": held}
