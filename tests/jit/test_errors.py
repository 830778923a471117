"""Errors in converted code: reported at the user's file and line (a marked window of source and
the converted line beneath), unsupported syntax named with a pointer to the docs, full_graph=False
falling back to eager with a warning."""
import inspect

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument, Unimplemented


def shape_bug(x):
    y = x * 2
    if y.mean() > 0:
        z = paddle.matmul(y, paddle.ones([3, 4]))
    else:
        z = y
    return z


def test_build_error_points_at_the_users_line_with_a_window_and_the_converted_line():
    sf = paddle.jit.to_static(shape_bug)
    with pytest.raises(InvalidArgument) as info:
        sf(paddle.ones([2, 2]))
    text = str(info.value)
    path = inspect.getsourcefile(shape_bug)
    line = inspect.getsourcelines(shape_bug)[1] + 3  # the matmul line
    assert "matmul: x's last dim (2) must equal y's first dim (3)" in text
    assert f"In converted code, at {path}, line {line}, in shape_bug:" in text
    assert f"> {line:4d}          z = paddle.matmul(y, paddle.ones([3, 4]))" in text
    assert "converted line (<to_static:" in text
    assert "z = _jst.convert_call(paddle.matmul)(y, _jst.convert_call(paddle.ones)([3, 4]))" in text
    assert f"building static op 'matmul' at {path}:{line}" in text  # not the generated file


def helper_with_bug(v):
    return v.reshape([7])


def calls_helper(x):
    if x.sum() > 0:
        x = helper_with_bug(x)
    return x


def test_error_in_a_converted_helper_names_the_helpers_line():
    with pytest.raises(InvalidArgument) as info:
        paddle.jit.to_static(calls_helper)(paddle.ones([2]))
    line = inspect.getsourcelines(helper_with_bug)[1] + 1
    assert f"line {line}, in helper_with_bug" in str(info.value)


def test_python_errors_keep_their_type():
    def f(x):
        d = {}
        return x + d["missing"]
    with pytest.raises(KeyError):
        paddle.jit.to_static(f)(paddle.ones([1]))


def test_generator_is_unsupported_with_a_pointer_to_the_docs():
    def gen(x):
        yield x
    with pytest.raises(Unimplemented, match=r"'yield \(generators\)' is not supported.*docs/dy2static.md"):
        paddle.jit.to_static(gen)(paddle.ones([1]))


COUNTER = 0


def test_global_rebound_in_a_branch_is_unsupported():
    def f(x):
        global COUNTER
        if x.sum() > 0:
            COUNTER = COUNTER + 1
        return x
    with pytest.raises(Unimplemented, match="'global COUNTER rebound inside if/while/for' is not supported"):
        paddle.jit.to_static(f)(paddle.ones([1]))


def test_try_inside_a_tensor_branch_is_unsupported_but_fine_under_a_python_condition():
    def f(x, flag):
        if flag:
            try:
                x = x + 1
            except ValueError:
                pass
        return x
    assert float(paddle.jit.to_static(f)(paddle.ones([1]), True)) == 2.0

    def g(x):
        if x.sum() > 0:
            try:
                x = x + 1
            except ValueError:
                pass
        return x
    with pytest.raises(Unimplemented, match="`try` inside an `if` whose condition is a tensor"):
        paddle.jit.to_static(g)(paddle.ones([1]))


def test_full_graph_false_falls_back_to_eager_with_a_warning():
    def gen_like(x):
        def inner():
            yield x
        return next(inner()) * 2
    sf = paddle.jit.to_static(gen_like, full_graph=False)
    with pytest.warns(UserWarning, match="runs eagerly.*yield"):
        out = sf(paddle.ones([2]))
    np.testing.assert_allclose(out.numpy(), [2.0, 2.0])


def test_branches_giving_a_tensor_and_a_string_fail_clearly():
    def f(x):
        if x.sum() > 0:
            y = x
        else:
            y = "negative"
        return y
    with pytest.raises(InvalidArgument, match="variable 'y' is a tensor in one branch but a str"):
        paddle.jit.to_static(f)(paddle.ones([1]))


def test_branches_with_different_structures_fail_clearly():
    def f(x):
        if x.sum() > 0:
            y = (x, x)
        else:
            y = (x, x, x)
        return y
    with pytest.raises(InvalidArgument, match="different structures"):
        paddle.jit.to_static(f)(paddle.ones([1]))


def test_loop_variable_that_is_not_a_tensor_or_number_fails_clearly():
    def f(x):
        i = paddle.to_tensor(0)
        mode = "start"
        while i < 3:
            mode = "running"
            x = x + 1
            i = i + 1
        return x, mode
    with pytest.raises(InvalidArgument, match="loop variable 'mode' is 'start' when a loop whose condition is a "
                                              "tensor starts"):
        paddle.jit.to_static(f)(paddle.ones([1]))


def test_run_time_error_names_the_users_line():
    def f(x):
        if x > 0:          # x has 2 elements: the predicate is checked when the program runs
            x = x + 1
        return x
    sf = paddle.jit.to_static(f, input_spec=[paddle.static.InputSpec([None], "float32")])
    line = inspect.getsourcelines(f)[1] + 1
    with pytest.raises(InvalidArgument) as info:
        sf(paddle.ones([2]))
    assert f"test_errors.py:{line}" in str(info.value)


def test_raise_under_a_tensor_condition_is_refused_naming_the_raise_line():
    # the probe: converted, both branches were built, the `raise` ran while building and the
    # `except` always won (f([-1.]) gave [-3.], eager gives [-2.])
    def f(x):
        try:
            if x.sum() > 0:
                raise ValueError("positive")
            y = x * 2
        except ValueError:
            y = x * 3
        return y
    raise_line = f.__code__.co_firstlineno + 3
    assert float(f(paddle.to_tensor([-1.0]))) == -2.0   # eager
    with pytest.raises(Unimplemented, match=rf"`raise` inside an `if` whose condition is a tensor is not supported "
                                            rf"\(.*test_errors.py, line {raise_line}\)"):
        paddle.jit.to_static(f)(paddle.to_tensor([-1.0]))


def test_raise_in_a_tensor_while_body_is_refused_and_fine_under_python_conditions():
    def loop(x):
        while x.sum() < 10:
            if x.sum() > 100:
                raise ValueError("diverged")
            x = x + 1
        return x
    with pytest.raises(Unimplemented, match="`raise` inside a loop whose condition is a tensor"):
        paddle.jit.to_static(loop)(paddle.ones([1]))

    def checked(x, n):
        if n < 0:
            raise ValueError("n must be >= 0")
        return x * n
    assert float(paddle.jit.to_static(checked)(paddle.ones([1]), 3)) == 3.0
    with pytest.raises(ValueError, match="n must be >= 0"):
        paddle.jit.to_static(checked)(paddle.ones([1]), -1)


@pytest.mark.parametrize("none_in", ["true", "false"])
def test_none_in_one_branch_of_a_tensor_if_is_an_error_not_zeros(none_in):
    def f(x):
        if x.sum() > 0:
            y = None if none_in == "true" else x * 2
        else:
            y = x * 2 if none_in == "true" else None
        return y
    with pytest.raises(ValueError, match=rf"variable 'y' is None in the {none_in} branch of a tensor-dependent `if`"):
        paddle.jit.to_static(f)(paddle.to_tensor([-1.0]))


def test_none_in_both_branches_is_kept_as_none():
    def f(x):
        if x.sum() > 0:
            y = None
        else:
            y = None
        return x + 1 if y is None else x
    assert float(paddle.jit.to_static(f)(paddle.to_tensor([-1.0]))) == 0.0


def test_none_in_a_tensor_conditional_expression_is_an_error_naming_it():
    def f(x):
        return x if x.sum() > 0 else None
    with pytest.raises(ValueError, match=r"variable '<a if cond else b>' is None in the false branch"):
        paddle.jit.to_static(f)(paddle.to_tensor([-1.0]))
