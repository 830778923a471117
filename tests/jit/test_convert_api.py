"""The to_static API around conversion: code, enable_to_static, not_to_static, ProgramTranslator,
declarative, get_concrete_program, nested outputs, op.source pointing at the user's line."""
import inspect

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.jit.convert_operators import UndefinedVar
from minipaddle.static import InputSpec


def branchy(x):
    if x.mean() > 0:
        y = x * 2
    else:
        y = x - 1
    return y


def test_code_shows_the_converted_source():
    sf = paddle.jit.to_static(branchy)
    code = sf.code
    assert code.startswith("def branchy(x):")
    assert "_jst.convert_ifelse(" in code and "def __true_fn_" in code and "def __false_fn_" in code
    assert "y = _jst.UndefinedVar('y')" in code
    assert paddle.jit.ProgramTranslator().get_code(branchy) == code


def test_enable_to_static_false_runs_the_python_function():
    sf = paddle.jit.to_static(branchy)
    try:
        paddle.jit.enable_to_static(False)
        out = sf(paddle.to_tensor([1.0]))
        assert len(sf.program_cache) == 0
    finally:
        paddle.jit.enable_to_static(True)
    assert float(out) == 2.0
    with pytest.raises(ValueError, match="expected a bool"):
        paddle.jit.enable_to_static("yes")


def test_not_to_static_helper_is_called_as_python():
    calls = []

    @paddle.jit.not_to_static
    def python_only(v):
        calls.append(type(v).__name__)
        return v + 1

    def f(x):
        return python_only(x)
    sf = paddle.jit.to_static(f)
    assert float(sf(paddle.to_tensor(1.0))) == 2.0
    assert calls == ["Variable"]  # called once, while the Program was built
    assert "_jst.convert_call(python_only)" in sf.code


def test_program_translator_and_declarative_aliases():
    pt = paddle.jit.ProgramTranslator.get_instance()
    assert pt is paddle.jit.ProgramTranslator()
    x = paddle.to_tensor([-3.0])
    assert float(pt.get_output(branchy, x)) == -4.0
    main, startup, inputs, outputs = pt.get_program(branchy, x)
    assert "cond" in [op.type for op in main.global_block().ops] and inputs[0].name == "x"
    assert callable(pt.get_func(branchy))
    assert float(paddle.jit.declarative(branchy)(x)) == -4.0


def test_get_concrete_program_from_input_specs_and_the_partial_program():
    sf = paddle.jit.to_static(branchy, input_spec=[InputSpec([None, 2], "float32", "inp")])
    cp = sf.concrete_program  # built from the input_spec before any call
    assert [v.name for v in cp.inputs] == ["inp"] and list(cp.inputs[0].shape) == [-1, 2]
    cp2, run = sf.get_concrete_program(InputSpec([None, 2], "float32", "inp"))
    assert cp2 is cp
    np.testing.assert_allclose(run(paddle.ones([3, 2])).numpy(), np.full([3, 2], 2.0))
    with pytest.raises(RuntimeError, match="no program yet"):
        _ = paddle.jit.to_static(branchy).concrete_program


def test_nested_outputs_python_values_and_kwargs():
    def f(x, scale=1.0, extra=None):
        out = {"double": x * 2 * scale, "pair": (x + 1, 3)}
        return out, None, "tag"
    sf = paddle.jit.to_static(f)
    out, none, tag = sf(paddle.to_tensor([1.0, 2.0]), scale=3.0)
    np.testing.assert_allclose(out["double"].numpy(), [6.0, 12.0])
    np.testing.assert_allclose(out["pair"][0].numpy(), [2.0, 3.0])
    assert out["pair"][1] == 3 and none is None and tag == "tag"


def test_ops_carry_the_users_source_line():
    sf = paddle.jit.to_static(branchy)
    sf(paddle.ones([2]))
    lines, start = inspect.getsourcelines(branchy)
    path = inspect.getsourcefile(branchy)
    program = sf.concrete_program.main_program
    sources = {op.type: op.source for block in program.blocks for op in block.ops if op.source}
    assert sources["cond"] == f"{path}:{start + 1}"       # `if x.mean() > 0:`
    assert sources["multiply"] == f"{path}:{start + 2}"   # `y = x * 2`
    assert sources["subtract"] == f"{path}:{start + 4}"   # `y = x - 1`


def test_converted_function_used_inside_a_static_program_is_inlined():
    sf = paddle.jit.to_static(branchy)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2], "float32")
        y = sf(x)
    got, = paddle.static.Executor().run(main, feed={"x": np.array([-1.0, 1.0], "float32")}, fetch_list=[y])
    np.testing.assert_allclose(got, [-2.0, 0.0])


def test_undefined_var_names_itself_when_used():
    with pytest.raises(RuntimeError, match="variable 'z' is used before it has a value"):
        UndefinedVar("z") + 1


def test_a_name_bound_only_in_one_python_branch_and_used_later_fails_clearly():
    def f(x, flag):
        if flag:
            z = x * 2
        return z + 1
    with pytest.raises(RuntimeError, match="'z' is used before it has a value"):
        paddle.jit.to_static(f)(paddle.ones([1]), False)


def test_short_circuit_is_kept_for_python_values():
    def f(x, items):
        if len(items) > 0 and items[0] > 0:
            return x + items[0]
        return x
    sf = paddle.jit.to_static(f)
    assert float(sf(paddle.to_tensor(1.0), [])) == 1.0   # items[0] never evaluated
    assert float(sf(paddle.to_tensor(1.0), [2])) == 3.0


def test_paddle_jit_namespace():
    for name in ("to_static", "not_to_static", "enable_to_static", "ProgramTranslator", "declarative", "save", "load",
                 "TracedLayer", "TranslatedLayer"):
        assert getattr(paddle.jit, name) is not None, name
    with pytest.raises(AttributeError):
        _ = paddle.jit.no_such_name


def test_feed_names_follow_the_parameters_lists_and_keywords():
    def f(x, pair, scale=None):
        return x + pair[0] * pair[1] + scale
    sf = paddle.jit.to_static(f)
    ones = paddle.ones([2])
    np.testing.assert_allclose(sf(ones, [ones, ones * 2], scale=ones).numpy(), [4.0, 4.0])
    assert [v.name for v in sf.concrete_program.inputs] == ["x", "pair_0", "pair_1", "scale"]


def test_assert_is_checked_for_python_values_now_and_for_variables_when_the_program_runs():
    def f(x, n):
        assert n > 0, "n must be positive"
        assert x.sum() > 0, "x must sum to more than 0"
        return x * n
    sf = paddle.jit.to_static(f)
    np.testing.assert_allclose(sf(paddle.ones([2]), 2).numpy(), [2.0, 2.0])
    with pytest.raises(AssertionError, match="n must be positive"):
        sf(paddle.ones([2]), 0)
    line = inspect.getsourcelines(f)[1] + 2
    with pytest.raises(AssertionError, match=rf"x must sum to more than 0 \(assert on a tensor, at .*:{line}\)"):
        sf(-paddle.ones([2]), 2)   # same Program as the first call: checked when it runs
    assert len(sf.program_cache) == 1   # n=0 failed while building: no Program for it


def test_print_of_variables_prints_values_each_time_the_program_runs(capsys):
    def f(x, n):
        i = paddle.to_tensor(0)
        while i < n:
            x = x * 2
            print("step", i, "x =", x)
            i = i + 1
        return x
    sf = paddle.jit.to_static(f)
    sf(paddle.ones([2]), paddle.to_tensor(2))
    assert capsys.readouterr().out == "step 0 x = [2., 2.]\nstep 1 x = [4., 4.]\n"
    x = paddle.ones([2])
    x.stop_gradient = False                       # the autograd path prints the same way
    sf(x, paddle.to_tensor(1)).sum().backward()
    assert capsys.readouterr().out == "step 0 x = [2., 2.]\n"
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


def test_source_map_links_lines_of_code_to_the_users_lines():
    sf = paddle.jit.to_static(branchy)
    start = inspect.getsourcelines(branchy)[1]
    code = sf.code.splitlines()
    mapping = sf.source_map
    assert mapping[1] == start                                         # def branchy(x):
    mul = next(i for i, text in enumerate(code, 1) if "y = x * 2" in text)
    sub = next(i for i, text in enumerate(code, 1) if "y = x - 1" in text)
    call = next(i for i, text in enumerate(code, 1) if "convert_ifelse(" in text)
    assert (mapping[mul], mapping[sub], mapping[call]) == (start + 2, start + 4, start + 1)


def test_numpy_arguments_are_inputs_not_constants():
    sf = paddle.jit.to_static(branchy)
    a, b = np.array([1.0, 2.0], "float32"), np.array([-1.0, -3.0], "float32")
    np.testing.assert_allclose(sf(a).numpy(), [2.0, 4.0])
    np.testing.assert_allclose(sf(b).numpy(), [-2.0, -4.0])
    assert len(sf.program_cache) == 1
