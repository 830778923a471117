"""Golden cases: Python bools, None and Ellipsis in an index (numpy's rules, which Paddle follows)."""
from .harness import case, outcome


def _a(paddle):
    return paddle.arange(6).reshape([2, 3])


@case
def a_true_adds_an_axis_of_size_1(paddle):
    return _a(paddle)[True]


@case
def a_false_adds_an_axis_of_size_0(paddle):
    return _a(paddle)[False]


@case
def bools_with_none_ellipsis_and_ints(paddle):
    a = _a(paddle)
    return {"a[None, True]": a[None, True], "a[True, None]": a[True, None], "a[0, True]": a[0, True],
            "a[True, 0]": a[True, 0], "a[..., True]": a[..., True], "a[..., True, None]": a[..., True, None],
            "a[True, True]": a[True, True], "a[..., False]": a[..., False], "a[1, ..., None]": a[1, ..., None],
            "a[[True, False]]": a[[True, False]]}


@case
def bools_on_a_0d_tensor(paddle):
    s = paddle.to_tensor(5.0)
    return {"s[True]": s[True], "s[False]": s[False], "s[None]": s[None], "s[...]": s[...]}


@case(differs="Paddle 3.3.1 raises IndexError for a Python bool after `None, ...` on most shapes (its "
              "bool-index check looks at the wrong axis); minipaddle follows numpy: shape [1, 2, 3, 1]")
def none_ellipsis_true(paddle):
    a = _a(paddle)
    return outcome(lambda: a[None, ..., True])


@case
def gradient_through_a_bool_index(paddle):
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    (x[True, 1] * paddle.to_tensor([[2.0, 3.0]])).sum().backward()
    return x.grad


@case
def setitem_with_a_true_index(paddle):
    x = paddle.zeros([2, 2])
    x[True] = 7.0
    y = paddle.zeros([2, 2])
    y[False] = 7.0
    return {"x[True] = 7": x, "y[False] = 7": y}
