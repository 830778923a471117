"""kernels/broadcast.py: the index helpers agree with numpy, and compile for the CPU and for CUDA."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from numba import cuda, njit

from minipaddle.framework.kernels import broadcast as B


@pytest.mark.parametrize("shape", [(2, 3), (4,), (2, 1, 3), (3, 5, 2, 2)])
def test_to_index_and_index_to_position_walk_c_order(shape):
    strides = B.contiguous_strides(shape)
    for ordinal in range(int(np.prod(shape))):
        index = B.to_index(ordinal, shape, [0] * len(shape))
        assert tuple(index) == np.unravel_index(ordinal, shape)
        assert B.index_to_position(index, strides) == ordinal


@pytest.mark.parametrize("small, big", [((3, 1), (2, 3, 4)), ((1,), (5, 2)), ((4,), (3, 4)), ((2, 1, 3), (2, 4, 3))])
def test_broadcast_index_and_position_read_what_numpy_broadcasting_reads(small, big):
    data = np.arange(int(np.prod(small))).reshape(small)
    expected = np.broadcast_to(data, big)
    strides = B.broadcast_strides(small, big)
    for ordinal in range(int(np.prod(big))):
        big_index = B.to_index(ordinal, big, [0] * len(big))
        index = B.broadcast_index(big_index, big, small, [0] * len(small))
        assert data[tuple(index)] == expected[tuple(big_index)]
        assert data.reshape(-1)[B.broadcast_position(ordinal, len(big), big, strides)] == expected[tuple(big_index)]
        own = B.contiguous_strides(big)
        assert B.broadcast_positions(ordinal, len(big), big, strides, own) == (
            B.broadcast_position(ordinal, len(big), big, strides), ordinal)


def test_coalesce_merges_dims_every_operand_walks_alike():
    assert B.coalesce((2, 3, 4), (12, 4, 1), (0, 0, 1)) == ((6, 4), ((4, 1), (0, 1)))
    assert B.coalesce((2, 3, 4), (12, 4, 1), (12, 4, 1)) == ((24,), ((1,), (1,)))
    assert B.coalesce((1, 1), (0, 0)) == ((1,), ((0,),))
    with pytest.raises(ValueError, match="at most 8"):
        B.padded(tuple(range(9)), 1)


def test_the_same_helper_compiles_for_the_cpu_and_as_a_cuda_device_function():
    cpu_position = njit(B.broadcast_position)
    device_position = cuda.jit(device=True)(B.broadcast_position)
    shape, strides = B.padded((2, 3, 4), 1), B.padded(B.broadcast_strides((3, 1), (2, 3, 4)), 0)

    @cuda.jit
    def positions(out, shape, strides):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = device_position(i, 3, shape, strides)

    out = cuda.device_array(24, np.int64)
    positions[1, 32](out, shape, strides)
    expected = [cpu_position(i, 3, shape, strides) for i in range(24)]
    assert out.copy_to_host().tolist() == expected == [i // 4 % 3 for i in range(24)]
    assert list(itertools.islice(expected, 5)) == [0, 0, 0, 0, 1]
