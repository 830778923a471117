"""Golden cases: paddle.autograd.PyLayer (forward, backward, ctx, double grad, Paddle's checks of what
backward returns) and paddle.autograd.backward."""
from .harness import case, outcome


def _x(paddle, values=(1.0, 2.0, -0.5)):
    return paddle.to_tensor(list(values), stop_gradient=False)


def _cube(paddle):
    class Cube(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, dy):
            (x,) = ctx.saved_tensor()
            return dy * 3 * x ** 2
    return Cube


@case
def forward_backward_and_ctx(paddle):
    class Scale(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x, k=2.0):
            ctx.k = k
            ctx.grad_enabled = paddle.is_grad_enabled()
            ctx.save_for_backward(x, None, 3)
            return x * k

        @staticmethod
        def backward(ctx, dy):
            saved = ctx.saved_tensor()
            ctx.saved = [type(saved).__name__, saved[1], saved[2]]
            return dy * ctx.k
    x = _x(paddle)
    ctx_seen = {}

    class Probe(Scale):
        @staticmethod
        def forward(ctx, x, k=2.0):
            ctx_seen["ctx"] = ctx
            return Scale.forward(ctx, x, k)
    y = Probe.apply(x, k=3.0)
    (y * paddle.to_tensor([1.0, 2.0, 3.0])).sum().backward()
    ctx = ctx_seen["ctx"]
    return {"y": y, "y.stop_gradient": y.stop_gradient, "x.grad": x.grad,
            "grad enabled inside forward": ctx.grad_enabled, "saved": ctx.saved}


@case
def double_grad_through_backward(paddle):
    x = _x(paddle)
    y = _cube(paddle).apply(x)
    (g,) = paddle.grad(y.sum(), x, create_graph=True)
    (gg,) = paddle.grad((g * g).sum(), x)
    return {"g": g, "gg": gg}


@case
def several_outputs_and_inputs(paddle):
    class MulAdd(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, a, b, c=None):
            ctx.save_for_backward(a, b)
            return a * b, a + c, "a string"

        @staticmethod
        def backward(ctx, d_prod, d_sum):
            a, b = ctx.saved_tensor()
            return d_prod * b + d_sum, d_prod * a, d_sum
    a, b, c = _x(paddle), _x(paddle, (0.5, -1.0, 2.0)), _x(paddle, (3.0, 3.0, 3.0))
    prod, total, text = MulAdd.apply(a, b, c=c)
    (prod * 2 + total * total).sum().backward()
    return {"prod": prod, "sum": total, "text": text, "a.grad": a.grad, "b.grad": b.grad, "c.grad": c.grad}


@case
def materialize_grads(paddle):
    seen = {}

    def make(materialize):
        class Two(paddle.autograd.PyLayer):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(materialize)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, d1, d2):
                seen[materialize] = None if d2 is None else d2
                return d1 * 2 if d2 is None else d1 * 2 + d2 * 3
        return Two
    out = {}
    for materialize in (True, False):
        x = _x(paddle)
        y1, _ = make(materialize).apply(x)
        y1.sum().backward()
        out[f"materialize={materialize}"] = {"x.grad": x.grad, "second grad": seen[materialize]}
    return out


@case
def non_differentiable_outputs(paddle):
    class SortWithIndex(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            scaled = x * 2
            doubled = x * 4
            ctx.mark_non_differentiable(doubled)
            return scaled, doubled, paddle.argmax(x)

        @staticmethod
        def backward(ctx, d_scaled, d_doubled, d_index):
            return d_scaled * 2 + d_doubled
    x = _x(paddle)
    scaled, doubled, index = SortWithIndex.apply(x)
    scaled.sum().backward()
    return {"stop_gradient": [scaled.stop_gradient, doubled.stop_gradient, index.stop_gradient],
            "index": index, "x.grad": x.grad}


@case
def inputs_without_gradient(paddle):
    class Mul(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y

        @staticmethod
        def backward(ctx, d):
            x, y = ctx.saved_tensor()
            return d * y, None
    x = _x(paddle)
    const = paddle.to_tensor([2.0, 2.0, 2.0])
    y = Mul.apply(x, const)
    y.sum().backward()
    nothing = Mul.apply(paddle.to_tensor([1.0]), paddle.to_tensor([2.0]))
    return {"x.grad": x.grad, "all inputs stop_gradient": nothing.stop_gradient}


def _returning(paddle, what):
    class Returns(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, d):
            return what(paddle, d)
    return Returns


@case
def backward_result_errors(paddle):
    def run(what, y_needs_grad=True):
        x = _x(paddle)
        y = paddle.to_tensor([1.0, 1.0, 1.0], stop_gradient=not y_needs_grad)
        return outcome(lambda: _returning(paddle, what).apply(x, y).sum().backward())
    return {"too many": run(lambda p, d: (d, d, d)),
            "too few (None for a needed input)": run(lambda p, d: d),
            "too few, the rest stop gradient": run(lambda p, d: d, y_needs_grad=False) is None,
            "a float": run(lambda p, d: (1.0, d)),
            "a gradient for a stop_gradient input": run(lambda p, d: (d, d), y_needs_grad=False)}


@case(differs="Paddle 3.3.1 accepts a gradient of the wrong shape and puts it in x.grad as is "
              "(x.grad gets shape [2, 2] for an x of shape [3]); minipaddle raises InvalidArgument")
def backward_gradient_of_wrong_shape(paddle):
    x = _x(paddle)
    y = paddle.to_tensor([1.0, 1.0, 1.0])
    return outcome(lambda: (_returning(paddle, lambda p, d: (p.ones([2, 2]), None)).apply(x, y).sum().backward(),
                            x.grad)[1])


@case
def forward_result_errors(paddle):
    class NoTensor(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            return 3.0

        @staticmethod
        def backward(ctx, d):
            return d
    return {"forward returns a float": outcome(lambda: NoTensor.apply(_x(paddle))),
            "PyLayer.forward not written": outcome(lambda: paddle.autograd.PyLayer.apply(_x(paddle)))}


@case
def pylayer_in_a_training_step(paddle):
    class StraightThroughSign(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            return paddle.sign(x)

        @staticmethod
        def backward(ctx, d):
            return d
    paddle.seed(0)
    w = paddle.to_tensor([[0.5, -0.2], [0.1, 0.3]], stop_gradient=False)
    x = paddle.to_tensor([[1.0, -2.0], [0.5, 0.25]])
    h = StraightThroughSign.apply(paddle.matmul(x, w))
    loss = ((h - paddle.to_tensor([[1.0, 1.0], [-1.0, 1.0]])) ** 2).mean()
    loss.backward()
    return {"h": h, "loss": loss, "w.grad": w.grad}


@case
def autograd_backward(paddle):
    x = _x(paddle)
    y1, y2 = x * 2, x * x
    paddle.autograd.backward([y1, y2], [paddle.to_tensor([1.0, 0.5, 0.0]), None])
    first = x.grad.numpy().copy()
    x.clear_gradient()
    z = (x * x).sum()
    paddle.autograd.backward(z, retain_graph=True)
    paddle.autograd.backward(z)
    twice = x.grad.numpy().copy()
    x.clear_gradient()
    paddle.autograd.backward(x * 3, paddle.to_tensor([1.0, 2.0, 3.0]))
    return {"two tensors": first, "retain_graph then again": twice, "one grad tensor": x.grad}
