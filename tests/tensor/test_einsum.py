"""paddle.einsum (minipaddle/tensor/einsum.py): values against numpy.einsum on hypothesis-drawn and
tabled equations (implicit and explicit outputs, '...', diagonals, traces, size-1 broadcasting),
float64 gradients through the ops it expands into, the ops themselves, and clear errors."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minipaddle as paddle
from minipaddle.framework import instrument
from minipaddle.framework.errors import InvalidArgument
from minipaddle.tensor.einsum import parse

from ..ops.opcheck import check_double_grad, check_grad

RNG = np.random.default_rng(11)


def einsum_both(equation: str, *arrays: np.ndarray):
    got = paddle.einsum(equation, *[paddle.to_tensor(a) for a in arrays])
    return got, np.einsum(equation.replace(" ", ""), *arrays)


@st.composite
def einsum_case(draw):
    """1-3 operands over the labels a-d (a label may repeat within a term: a diagonal), each label
    with one size; the output implicit or an explicit subset of the labels in any order."""
    sizes = {label: draw(st.integers(1, 3)) for label in "abcd"}
    n_operands = draw(st.integers(1, 3))
    terms = [draw(st.lists(st.sampled_from("abcd"), max_size=3)) for _ in range(n_operands)]
    seen = sorted({label for term in terms for label in term})
    equation = ",".join("".join(term) for term in terms)
    if draw(st.booleans()):
        output = draw(st.permutations(seen).map(lambda p: p[:draw(st.integers(0, len(seen)))]))
        equation += "->" + "".join(output)
    shapes = [[sizes[label] for label in term] for term in terms]
    return equation, shapes


@settings(max_examples=60, deadline=None)
@given(case=einsum_case(), seed=st.integers(0, 2**16))
def test_einsum_matches_numpy_on_drawn_equations(case, seed):
    equation, shapes = case
    rng = np.random.default_rng(seed)
    got, want = einsum_both(equation, *[rng.normal(size=s) for s in shapes])
    assert got.shape == list(want.shape), equation
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12, err_msg=equation)


TABLE = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),            # matmul
    ("ij,jk", [(2, 3), (3, 4)]),                # implicit output: 'ik'
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),   # batched matmul
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),   # attention scores
    ("ij,ij->", [(2, 3), (2, 3)]),              # a dot product
    ("ij,ij->ij", [(1, 3), (2, 3)]),            # a size-1 dim broadcasts
    ("ij,i->", [(1, 3), (4,)]),
    ("i,j->ij", [(2,), (3,)]),                  # outer product
    ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("iij->j", [(2, 2, 3)]), ("iji->j", [(3, 2, 3)]),   # diagonals
    ("ba", [(2, 3)]), ("ij->ji", [(2, 3)]), ("ijk->", [(2, 3, 4)]), ("i j -> j", [(2, 3)]),
    ("...ij,...jk", [(5, 2, 3), (3, 4)]),       # '...' broadcasts, right-aligned
    ("ij...,j->i...", [(2, 3, 4), (3,)]),
    ("...,...->...", [(2, 3), (3,)]),
    ("a...,...b->...ab", [(2, 1, 4), (3, 4, 5)]),
    ("Ab,bC->AC", [(2, 3), (3, 2)]),            # capitals are labels too
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]), ("ab,ab,ab->", [(2, 3), (2, 3), (2, 3)]),
    ("", [()]), (",->", [(), ()]),
]


@pytest.mark.parametrize("equation, shapes", TABLE, ids=[e or "scalar" for e, _ in TABLE])
def test_einsum_matches_numpy_on_the_table(equation, shapes):
    got, want = einsum_both(equation, *[RNG.normal(size=s) for s in shapes])
    assert got.shape == list(want.shape)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12)


def test_float32_stays_float32_and_a_plain_copy_is_a_new_tensor():
    x = paddle.rand([2, 3])
    assert paddle.einsum("ij,jk->ik", x, paddle.rand([3, 2])).dtype == paddle.float32
    same = paddle.einsum("ij->ij", x)
    assert same is not x and np.array_equal(same.numpy(), x.numpy())


@pytest.mark.parametrize("equation, shapes", [
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]), ("ii->i", [(3, 3)]), ("ij,ij->", [(2, 3), (2, 3)]),
    ("bhqd,bhkd->bhqk", [(1, 2, 3, 2), (1, 2, 2, 2)]), ("ij,i->", [(1, 3), (4,)]), ("...ij,...jk", [(2, 2, 3), (3, 2)]),
    ("iij->j", [(2, 2, 3)]), ("ab,bc,cd->ad", [(2, 2), (2, 3), (3, 2)]),
])
def test_gradients_flow_through_the_expanded_ops(equation, shapes):
    check_grad(lambda *xs: paddle.einsum(equation, *xs), [RNG.normal(size=s) for s in shapes])


def test_double_grad():
    check_double_grad(lambda a, b: paddle.einsum("ij,jk->ik", a, b) ** 2, [RNG.normal(size=(2, 3)),
                                                                           RNG.normal(size=(3, 2))])


def _ops_run(equation, *shapes) -> list[str]:
    names = []
    stop = instrument.subscribe(lambda e: names.append(e.op), kinds=("op",))
    try:
        paddle.einsum(equation, *[paddle.rand(list(s)) for s in shapes])
    finally:
        stop()
    return names


def test_einsum_expands_into_ops_the_debugger_shows():
    assert _ops_run("bij,bjk->bik", (2, 3, 4), (2, 4, 5)) == ["matmul"]   # already in matmul's layout
    assert _ops_run("bhqd,bhkd->bhqk", (2, 3, 4, 5), (2, 3, 6, 5)) == [
        "transpose", "reshape", "reshape", "matmul", "reshape"]
    assert _ops_run("ii->", (3, 3)) == ["reshape", "getitem", "sum"]     # the diagonal is a strided slice
    assert "einsum" not in _ops_run("ij,jk,kl->il", (2, 3), (3, 4), (4, 2))


def test_parse_labels_ellipsis_dims_right_aligned():
    eq = parse("...ij,j...->...i", (4, 2))
    assert eq.inputs == (("0", "1", "i", "j"), ("j", "1")) and eq.output == ("0", "1", "i")
    assert parse("ji,kj", (2, 2)).output == ("i", "k")


def test_errors_name_what_is_wrong():
    with pytest.raises(InvalidArgument, match=r"einsum: the label 'j' has size 3 in operand 0 dim 1 but size 4 "
                                              r"in operand 1 dim 0"):
        paddle.einsum("ij,jk->ik", paddle.ones([2, 3]), paddle.ones([4, 4]))
    with pytest.raises(InvalidArgument, match="einsum: the output label 'k' is in no operand"):
        paddle.einsum("ij->k", paddle.ones([2, 3]))
    with pytest.raises(InvalidArgument, match=r"einsum: the equation 'ij' names 1 operand\(s\) but 2 were given"):
        paddle.einsum("ij", paddle.ones([2, 3]), paddle.ones([2, 3]))
    with pytest.raises(InvalidArgument, match="einsum: operand 0 has 2 dims but its term 'ijk' labels 3"):
        paddle.einsum("ijk", paddle.ones([2, 3]))
    with pytest.raises(InvalidArgument, match=r"einsum: operand 0's term 'i\.\.j' has a '\.' outside"):
        paddle.einsum("i..j", paddle.ones([2, 3]))
    with pytest.raises(InvalidArgument, match="einsum: the output 'ii' names the label 'i' twice"):
        paddle.einsum("ij->ii", paddle.ones([2, 2]))
    with pytest.raises(InvalidArgument, match="einsum: the operands have '...' dims but the output 'i' has no"):
        paddle.einsum("...i->i", paddle.ones([2, 3]))
    with pytest.raises(InvalidArgument, match="einsum: operand 0 has dtype float32 but operand 1 has float64"):
        paddle.einsum("i,i", paddle.ones([2]), paddle.ones([2], dtype="float64"))
    with pytest.raises(InvalidArgument, match="einsum: equation got list, expected a string"):
        paddle.einsum(["ij"], paddle.ones([2, 3]))
    with pytest.raises(InvalidArgument, match=r"einsum: the label '\.\.\.' has size 2"):
        paddle.einsum("...,...", paddle.ones([2]), paddle.ones([3]))
