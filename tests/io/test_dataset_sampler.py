"""paddle.io datasets and samplers: Paddle's semantics for indices, batching, splitting and their errors."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument
from minipaddle.io import (BatchSampler, ChainDataset, ComposeDataset, ConcatDataset, Dataset, IterableDataset,
                           RandomSampler, Sampler, SequenceSampler, Subset, SubsetRandomSampler, TensorDataset,
                           WeightedRandomSampler, random_split)


class Range(Dataset):
    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i):
        return i


class Stream(IterableDataset):
    def __init__(self, items) -> None:
        self.items = items

    def __iter__(self):
        return iter(self.items)


# ---- datasets ------------------------------------------------------------------------------------
def test_tensor_dataset_rows_and_length():
    x = paddle.to_tensor(np.arange(12, dtype=np.float32).reshape(4, 3))
    y = paddle.to_tensor([0, 1, 2, 3])
    ds = TensorDataset([x, y])
    assert len(ds) == 4
    xi, yi = ds[2]
    np.testing.assert_array_equal(xi.numpy(), [6, 7, 8])
    assert yi.item() == 2 and isinstance(xi, paddle.Tensor)


def test_tensor_dataset_rejects_mismatched_first_dims_and_non_tensors():
    with pytest.raises(InvalidArgument, match=r"tensors\[1\] has shape \[3\].*same first dimension \(4\)"):
        TensorDataset([paddle.zeros([4, 2]), paddle.zeros([3])])
    with pytest.raises(InvalidArgument, match=r"tensors\[0\] is a ndarray, expected a Tensor"):
        TensorDataset([np.zeros(3)])


def test_compose_dataset_concatenates_fields_and_checks_lengths():
    a = TensorDataset([paddle.arange(3), paddle.arange(3) * 10])
    ds = ComposeDataset([a, Range(3)])
    fields = ds[1]
    assert len(fields) == 3 and fields[1].item() == 10 and fields[2] == 1
    with pytest.raises(InvalidArgument, match=r"datasets\[1\] has 4 samples, expected 3"):
        ComposeDataset([Range(3), Range(4)])


def test_chain_and_concat_datasets():
    assert list(ChainDataset([Stream([1, 2]), Stream([3])])) == [1, 2, 3]
    cat = ConcatDataset([Range(2), Range(3)])
    assert len(cat) == 5 and [cat[i] for i in range(5)] == [0, 1, 0, 1, 2] and cat[-1] == 2
    with pytest.raises(IndexError, match="out of range"):
        cat[5]
    with pytest.raises(InvalidArgument, match="expected an IterableDataset"):
        ChainDataset([Range(2)])


def test_subset_follows_its_indices():
    sub = Subset(Range(10), [7, 3, 3])
    assert len(sub) == 3 and [sub[i] for i in range(3)] == [7, 3, 3]


def test_random_split_absolute_lengths_is_a_partition_reproducible_with_seed():
    paddle.seed(3)
    parts = random_split(Range(10), [7, 3])
    paddle.seed(3)
    again = random_split(Range(10), [7, 3])
    assert [len(p) for p in parts] == [7, 3]
    values = [p[i] for p in parts for i in range(len(p))]
    assert sorted(values) == list(range(10))
    assert [p.indices for p in parts] == [p.indices for p in again]
    assert values != list(range(10))  # shuffled


def test_random_split_fractions_deal_the_remainder_round_robin():
    parts = random_split(Range(11), [0.5, 0.3, 0.2])
    # floor: 5, 3, 2 (10) -> the one left over goes to the first split
    assert [len(p) for p in parts] == [6, 3, 2]
    parts = random_split(Range(10), [0.25, 0.25, 0.5], generator=np.random.default_rng(0))
    assert [len(p) for p in parts] == [3, 2, 5]  # floor: 2, 2, 5


def test_random_split_bad_lengths():
    with pytest.raises(InvalidArgument, match="sum to 9, expected the dataset's length 10"):
        random_split(Range(10), [5, 4])
    with pytest.raises(InvalidArgument, match="fractions in \\[0, 1\\] summing to 1"):
        random_split(Range(10), [0.5, 0.4])
    with pytest.raises(InvalidArgument, match="expected a numpy.random.Generator"):
        random_split(Range(4), [2, 2], generator=42)


def test_iterable_dataset_has_no_len_or_getitem():
    with pytest.raises(TypeError):
        len(Stream([1]))
    with pytest.raises(InvalidArgument, match="no __getitem__"):
        Stream([1])[0]


# ---- samplers ------------------------------------------------------------------------------------
def test_sequence_sampler():
    s = SequenceSampler(Range(4))
    assert list(s) == [0, 1, 2, 3] and len(s) == 4


def test_base_sampler_needs_iter():
    with pytest.raises(NotImplementedError):
        iter(Sampler(Range(2)))


def test_random_sampler_is_a_permutation_that_follows_paddle_seed():
    paddle.seed(11)
    first = list(RandomSampler(Range(50)))
    paddle.seed(11)
    second = list(RandomSampler(Range(50)))
    assert first == second and sorted(first) == list(range(50)) and first != list(range(50))
    assert list(RandomSampler(Range(50))) != first  # the generator moved on


def test_random_sampler_with_replacement_and_num_samples():
    s = RandomSampler(Range(3), replacement=True, num_samples=200)
    drawn = list(s)
    assert len(s) == 200 and len(drawn) == 200 and set(drawn) == {0, 1, 2}


def test_random_sampler_generator_forms():
    assert list(RandomSampler(Range(5), generator=iter([4, 2, 0]))) == [4, 2, 0]  # Paddle: an index iterator
    a = list(RandomSampler(Range(20), generator=np.random.default_rng(1)))
    b = list(RandomSampler(Range(20), generator=np.random.default_rng(1)))
    assert a == b


def test_random_sampler_errors():
    with pytest.raises(InvalidArgument, match="num_samples was given while replacement=False"):
        RandomSampler(Range(3), num_samples=2)
    with pytest.raises(InvalidArgument, match="replacement got 1"):
        RandomSampler(Range(3), replacement=1)
    with pytest.raises(InvalidArgument, match="num_samples got 0"):
        RandomSampler(Range(0))


def test_subset_random_sampler_permutes_its_indices():
    assert sorted(SubsetRandomSampler([5, 9, 1])) == [1, 5, 9]


def test_weighted_random_sampler_follows_the_weights():
    paddle.seed(0)
    drawn = np.array(list(WeightedRandomSampler([0.0, 1.0, 3.0], num_samples=4000)))
    assert not np.any(drawn == 0)
    assert abs(np.mean(drawn == 2) - 0.75) < 0.03
    no_repeat = list(WeightedRandomSampler([1, 1, 1, 0], num_samples=3, replacement=False))
    assert sorted(no_repeat) == [0, 1, 2]


def test_weighted_random_sampler_errors():
    with pytest.raises(InvalidArgument, match="non-negative"):
        WeightedRandomSampler([1.0, -1.0], 2)
    with pytest.raises(InvalidArgument, match="num_samples \\(3\\) is more than the 2 non-zero weights"):
        WeightedRandomSampler([1, 0, 1], 3, replacement=False)
    with pytest.raises(InvalidArgument, match="num_samples got 0"):
        WeightedRandomSampler([1, 1], 0)


def test_batch_sampler_keeps_or_drops_the_last_short_batch():
    assert list(BatchSampler(Range(7), batch_size=3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(BatchSampler(Range(7), batch_size=3)) == 3
    dropped = BatchSampler(Range(7), batch_size=3, drop_last=True)
    assert list(dropped) == [[0, 1, 2], [3, 4, 5]] and len(dropped) == 2


def test_batch_sampler_shuffle_and_sampler_forms():
    paddle.seed(5)
    batches = list(BatchSampler(Range(10), shuffle=True, batch_size=4))
    assert [len(b) for b in batches] == [4, 4, 2]
    assert sorted(i for b in batches for i in b) == list(range(10))
    assert list(BatchSampler(sampler=SubsetRandomSampler([3]), batch_size=2)) == [[3]]


def test_batch_sampler_errors():
    with pytest.raises(InvalidArgument, match="exactly one of dataset and sampler, got neither"):
        BatchSampler()
    with pytest.raises(InvalidArgument, match="got both"):
        BatchSampler(Range(3), sampler=SequenceSampler(Range(3)))
    with pytest.raises(InvalidArgument, match="shuffle=True with a sampler"):
        BatchSampler(sampler=SequenceSampler(Range(3)), shuffle=True)
    with pytest.raises(InvalidArgument, match="batch_size got 0"):
        BatchSampler(Range(3), batch_size=0)


# ---- DistributedBatchSampler (one process: rank 0 of 1 unless told otherwise) --------------------
def test_distributed_batch_sampler_splits_as_paddle():
    from minipaddle.io import DistributedBatchSampler as DBS
    data = list(range(10))
    assert list(DBS(data, batch_size=3)) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert len(DBS(data, batch_size=3, drop_last=True)) == 3
    ranks = [list(DBS(data, batch_size=3, num_replicas=2, rank=r)) for r in (0, 1)]
    assert ranks == [[[0, 1, 2], [6, 7]], [[3, 4, 5], [8, 9]]]
    assert sorted(i for r in ranks for b in r for i in b) == data   # every sample once (10 is even)
    s = DBS(data, batch_size=4, shuffle=True)
    s.set_epoch(1)
    assert list(s) == [[2, 9, 6, 4], [0, 3, 1, 7], [8, 5]]   # numpy RandomState(1), as Paddle
    batches = [b.numpy().tolist() for b in paddle.io.DataLoader(data, batch_sampler=DBS(data, batch_size=4))]
    assert batches == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    with pytest.raises(InvalidArgument, match=r"DistributedBatchSampler: rank got 2, expected an int with 0 <= "):
        DBS(data, batch_size=2, num_replicas=2, rank=2)
    with pytest.raises(InvalidArgument, match="DistributedBatchSampler: batch_size got 0"):
        DBS(data, batch_size=0)
