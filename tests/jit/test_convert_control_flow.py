"""to_static conversion of control flow: each function in the corpus, converted, agrees with eager
execution for inputs that take every branch (called in sequence on one converted object), and its
Program holds the control-flow ops."""
import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F

T = paddle.to_tensor
XS = [T([1.0, 2.0]), T([-1.0, -2.0]), T([0.2, 0.3]), T([3.0, 4.0]), T([0.5, 9.5])]


def if_elif(x):
    if x.mean() > 1:
        y = x * 3
    elif x.mean() > 0:
        y = x * 2
    else:
        y = -x
    return y


def if_without_else(x):
    y = x + 1
    if x.sum() > 0:
        y = y * 10
    return y


def while_data_dependent(x):
    s = x
    while s.abs().sum() < 100:
        s = s * 2
    return s


def early_return(x):
    if x.mean() > 0:
        return x * 2
    z = x - 1
    return z * 3


def and_or_not(x):
    if x.mean() > 0 and x.sum() < 10:
        return x + 100
    if not x.mean() > -1 or x.max() > 5:
        return x - 100
    return x


def while_with_break(x):
    i = paddle.to_tensor(0)
    s = x * 0
    while i < 10:
        s = s + x
        if s.sum() > 5:
            break
        i = i + 1
    return s


def for_range_tensor(x, n):
    s = x * 0
    for _i in range(n):
        s = s + x
    return s


def for_with_continue(x, n):
    s = x * 0
    for i in range(n):
        if i % 2 == 0:
            continue
        s = s + x * 2
    return s


def helper(v):
    if v.sum() > 0:
        return v * 2
    return v - 1


def nested_loops(x, n):
    s = x * 0
    i = paddle.to_tensor(0)
    while i < n:
        j = paddle.to_tensor(0)
        while j < i:
            if s.sum() > 3:
                s = s + 1
            else:
                s = s + helper(x)
            j = j + 1
        i = i + 1
    return s


def python_flags(x, use_relu=True, times=2):
    if use_relu:
        x = F.relu(x)
    for _ in range(times):
        x = x * 2
    return x


def tuple_return(x):
    if x.sum() > 0:
        a, b = x * 2, x + 1
    else:
        a, b = x - 1, x * 0
    return a, b


def python_counter(x):
    count = 0
    if x.sum() > 0:
        count = count + 1
    return x * 1.0, count


def _check(fn, *argsets):
    sf = paddle.jit.to_static(fn)
    for args in argsets:
        want, got = fn(*args), sf(*args)
        want = want if isinstance(want, tuple) else (want,)
        got = got if isinstance(got, tuple) else (got,)
        for w, g in zip(want, got):
            np.testing.assert_allclose(np.asarray(g.numpy() if hasattr(g, "numpy") else g),
                                       np.asarray(w.numpy() if hasattr(w, "numpy") else w), rtol=1e-6)
    return sf


def _op_types(program) -> list[str]:
    return [op.type for block in program.blocks for op in block.ops]


@pytest.mark.parametrize("fn,ops", [(if_elif, ["cond"]), (if_without_else, ["cond"]),
                                    (while_data_dependent, ["while"]), (early_return, ["cond"]),
                                    (and_or_not, ["cond", "logical_and", "logical_or", "logical_not"]),
                                    (while_with_break, ["while", "cond"]), (tuple_return, ["cond"])])
def test_one_input_functions_match_eager_on_every_branch(fn, ops):
    sf = _check(fn, *[(x,) for x in XS])
    assert len(sf.program_cache) == 1  # one signature, every branch: one Program
    types = _op_types(sf.concrete_program.main_program)
    for op in ops:
        assert op in types


@pytest.mark.parametrize("fn", [for_range_tensor, for_with_continue, nested_loops])
def test_loops_over_a_tensor_count_match_eager(fn):
    argsets = [(x, T(n)) for x in XS[:3] for n in (0, 1, 3, 4)]
    sf = _check(fn, *argsets)
    assert len(sf.program_cache) == 1
    assert "while" in _op_types(sf.concrete_program.main_program)


def test_python_flags_never_become_graph_ops():
    sf = _check(python_flags, (XS[1],), (XS[1], False), (XS[1], False, 3), (XS[0], True, 1), (XS[0], False, 3))
    assert len(sf.program_cache) == 4  # Python arguments are part of the signature, by value
    types = _op_types(sf.program_cache[next(iter(sf.program_cache))].main_program)
    assert "cond" not in types and "while" not in types and types.count("multiply") == 2


def test_python_counter_under_a_tensor_branch_becomes_a_tensor():
    sf = paddle.jit.to_static(python_counter)
    for x, want in ((XS[0], 1), (XS[1], 0)):
        _, count = sf(x)
        assert int(count.numpy()) == want


def test_converted_helpers_are_converted_recursively():
    sf = _check(nested_loops, (XS[0], T(3)))
    # the helper's `if` is a cond inside the loop body: the main program's while body holds it
    assert _op_types(sf.concrete_program.main_program).count("cond") >= 2


def test_for_over_a_python_range_unrolls_and_over_a_tensor_indexes_rows():
    def rows(x):
        s = x[0] * 0
        for row in x:
            s = s + row
        return s
    x = paddle.randn([3, 2])
    sf = _check(rows, (x,))
    assert "while" not in _op_types(sf.concrete_program.main_program)  # a known length: unrolled


def test_enumerate_and_list_iteration():
    def f(x, scales):
        out = x * 0
        for i, s in enumerate(scales):
            out = out + x * s + i
        return out
    _check(f, (XS[0], [1.0, 2.0, 3.0]))


def test_shapes_changing_builds_a_new_program_and_same_shape_reuses():
    sf = paddle.jit.to_static(if_elif)
    sf(paddle.ones([2]))
    sf(paddle.ones([2]) * -1)
    sf(paddle.ones([3]))
    sf(paddle.ones([2], dtype="float64"))
    assert len(sf.program_cache) == 3


def test_program_runs_with_the_static_executor_too():
    sf = paddle.jit.to_static(while_data_dependent)
    sf(XS[0])
    cp = sf.concrete_program
    exe = paddle.static.Executor()
    for x in XS:
        got, = exe.run(cp.main_program, feed={cp.inputs[0].name: x.numpy()}, fetch_list=cp.outputs)
        np.testing.assert_allclose(got, while_data_dependent(x).numpy())


def test_a_python_number_accumulator_takes_the_bodys_dtype_and_shape():
    def f(x, n):
        total = 0
        i = 0
        while i < n:
            total = total + x * 0.5
            i += 1
        return total
    sf = _check(f, (XS[0], T(3)), (XS[1], T(1)))
    assert "while" in _op_types(sf.concrete_program.main_program)


def test_shape_dims_unknown_while_building_are_computed_at_run_time():
    def f(x):
        s = x[0] * 0
        for _ in range(x.shape[0]):
            s = s + x[0]
        return s, len(x)
    sf = paddle.jit.to_static(f, input_spec=[paddle.static.InputSpec([None, 3], "float32")])
    for rows in (1, 2, 5):
        x = paddle.ones([rows, 3])
        s, n = sf(x)
        np.testing.assert_allclose(s.numpy(), np.full([3], float(rows)))
        assert int(n) == rows
    assert len(sf.program_cache) == 1


def test_conditional_expression_on_a_tensor_is_a_cond():
    def f(x):
        return x * 2 if x.sum() > 0 else x - 1
    sf = _check(f, (XS[0],), (XS[1],))
    assert "cond" in _op_types(sf.concrete_program.main_program)


def test_casts_of_tensors_become_cast_ops():
    def f(x):
        n = int(x.sum())
        return x * float(n) if bool(x.sum() > 0) else x
    sf = paddle.jit.to_static(f)
    np.testing.assert_allclose(sf(T([1.0, 2.5])).numpy(), f(T([1.0, 2.5])).numpy())
    assert "cast" in _op_types(sf.concrete_program.main_program)


def return_inside_a_tensor_loop(x):
    i = paddle.to_tensor(0)
    while i < 10:
        x = x + 1
        if x.sum() > 8:
            return x * 100
        i = i + 1
    return x


def test_return_inside_a_tensor_loop():
    sf = _check(return_inside_a_tensor_loop, (T([0.0, 0.0]),), (T([-20.0, -20.0]),), (T([5.0, 5.0]),))
    assert "while" in _op_types(sf.concrete_program.main_program)


def test_a_name_first_bound_in_a_tensor_loop_body_is_carried_out():
    def f(x):
        i = paddle.to_tensor(0)
        while i < 3:
            last = x * i.astype("float32")
            i = i + 1
        return last
    _check(f, (T([1.0, 2.0]),))


def test_nested_function_with_its_own_early_return_is_converted_with_the_outer_one():
    def f(x):
        def inner(v):
            if v.sum() > 0:
                return v * 2
            return v - 1
        return inner(x) + 1
    sf = _check(f, (XS[0],), (XS[1],))
    assert "cond" in _op_types(sf.concrete_program.main_program)


def test_break_under_a_tensor_condition_in_a_python_range_loop():
    def f(x):
        for _ in range(4):
            x = x + 1
            if x.sum() > 5:
                break
        return x
    sf = _check(f, (T([0.0, 0.0]),), (T([2.0, 2.0]),), (T([-5.0, -5.0]),))
    # the first iteration is unrolled; once the break flag is a tensor the rest is one while op
    assert _op_types(sf.concrete_program.main_program).count("while") == 1


def test_rows_of_a_tensor_with_an_unknown_length_and_indexing_by_the_counter():
    def rows(x):
        s = x[0] * 0
        for row in x:
            s = s + row * 2
        return s

    def by_index(x, n):
        total = x[0] * 0
        for i in range(n):
            total = total + x[i]
        return total
    spec = [paddle.static.InputSpec([None, 3], "float32")]
    sf = paddle.jit.to_static(rows, input_spec=spec)
    for n in (1, 4):
        x = paddle.randn([n, 3])
        np.testing.assert_allclose(sf(x).numpy(), rows(x).numpy(), rtol=1e-6)
    assert "while" in _op_types(sf.concrete_program.main_program)
    x = paddle.randn([4, 3])
    _check(by_index, (x, T(2)), (x, T(4)))
