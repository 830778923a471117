"""DataLoader: batches and their types, len, iterable datasets, Paddle's argument rules, return_list."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument
from minipaddle.io import (BatchSampler, DataLoader, Dataset, IterableDataset, SequenceSampler, TensorDataset,
                           get_worker_info)


class Pairs(Dataset):
    """Sample i: (a float32 [2, 3] image filled with i, the int label i)."""

    def __init__(self, n: int = 10) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i):
        return np.full((2, 3), i, np.float32), i


class Single(Pairs):
    def __getitem__(self, i):
        return np.array([i, i], np.float32)


class Stream(IterableDataset):
    def __init__(self, n: int) -> None:
        self.n = n

    def __iter__(self):
        return iter(range(self.n))


def labels(loader) -> list[list[int]]:
    return [batch[1].numpy().tolist() for batch in loader]


def test_batches_are_lists_of_tensors_with_paddle_dtypes():
    batches = list(DataLoader(Pairs(10), batch_size=4))
    assert len(batches) == 3
    images, ys = batches[0]
    assert isinstance(images, paddle.Tensor) and images.shape == [4, 2, 3] and images.dtype == paddle.float32
    assert ys.dtype == paddle.int64 and ys.numpy().tolist() == [0, 1, 2, 3]
    assert batches[2][0].shape == [2, 2, 3]  # the short last batch is kept
    np.testing.assert_array_equal(images.numpy()[3], np.full((2, 3), 3))


def test_a_single_field_sample_gives_a_tensor_not_a_list():
    batch = next(iter(DataLoader(Single(4), batch_size=2)))
    assert isinstance(batch, paddle.Tensor) and batch.numpy().tolist() == [[0, 0], [1, 1]]


def test_len_follows_batch_size_and_drop_last():
    assert len(DataLoader(Pairs(10), batch_size=4)) == 3
    loader = DataLoader(Pairs(10), batch_size=4, drop_last=True)
    assert len(loader) == 2 and labels(loader) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert len(DataLoader(Pairs(10), batch_size=None)) == 10


def test_batch_size_none_yields_unbatched_samples():
    samples = list(DataLoader(Pairs(3), batch_size=None))
    image, y = samples[2]
    assert image.shape == [2, 3] and y.shape == [] and y.item() == 2


def test_shuffle_visits_every_sample_once_and_is_reproducible_with_paddle_seed():
    paddle.seed(1)
    first = sum(labels(DataLoader(Pairs(20), batch_size=3, shuffle=True)), [])
    paddle.seed(1)
    second = sum(labels(DataLoader(Pairs(20), batch_size=3, shuffle=True)), [])
    assert first == second and sorted(first) == list(range(20)) and first != list(range(20))


def test_a_batch_sampler_decides_the_batches():
    sampler = BatchSampler(sampler=SequenceSampler(Pairs(5)), batch_size=2)
    loader = DataLoader(Pairs(5), batch_sampler=sampler)
    assert len(loader) == 3 and labels(loader) == [[0, 1], [2, 3], [4]]


def test_tensor_dataset_through_the_loader():
    x = paddle.randn([7, 3])
    y = paddle.arange(7)
    batches = list(DataLoader(TensorDataset([x, y]), batch_size=4))
    np.testing.assert_array_equal(batches[1][0].numpy(), x.numpy()[4:])
    assert batches[1][1].numpy().tolist() == [4, 5, 6]


def test_custom_collate_fn_output_is_converted_to_tensors():
    def collate(samples):
        return {"labels": np.array([s[1] for s in samples]) * 10, "n": len(samples)}
    batch = next(iter(DataLoader(Pairs(3), batch_size=3, collate_fn=collate)))
    # arrays become Tensors; plain numbers stay numbers, as in Paddle
    assert isinstance(batch["labels"], paddle.Tensor) and batch["labels"].numpy().tolist() == [0, 10, 20]
    assert batch["n"] == 3


def test_iterable_dataset_batches_and_drop_last():
    assert [b.numpy().tolist() for b in DataLoader(Stream(7), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [b.numpy().tolist() for b in DataLoader(Stream(7), batch_size=3, drop_last=True)] == [[0, 1, 2],
                                                                                                [3, 4, 5]]
    assert [b.item() for b in DataLoader(Stream(3), batch_size=None)] == [0, 1, 2]
    with pytest.raises(InvalidArgument, match="IterableDataset has no length"):
        len(DataLoader(Stream(3)))


def test_iterating_twice_gives_two_full_epochs():
    loader = DataLoader(Pairs(5), batch_size=2)
    assert labels(loader) == labels(loader) == [[0, 1], [2, 3], [4]]


def test_return_list_false_names_fields_by_feed_list():
    batch = next(iter(DataLoader(Pairs(4), batch_size=2, return_list=False, feed_list=["image", "label"])))
    assert set(batch) == {"image", "label"} and batch["label"].numpy().tolist() == [0, 1]


def test_get_worker_info_is_none_in_the_main_process():
    assert get_worker_info() is None


@pytest.mark.parametrize("kwargs, message", [
    ({"num_workers": -1}, "num_workers got -1, expected an int >= 0"),
    ({"prefetch_factor": 0}, "prefetch_factor got 0"),
    ({"timeout": -1}, "timeout got -1"),
    ({"batch_size": 0}, "batch_size got 0"),
    ({"worker_mode": "fiber"}, "worker_mode got 'fiber'"),
    ({"return_list": False}, "return_list=False needs a feed_list"),
    ({"batch_sampler": BatchSampler(Pairs(2)), "batch_size": 2}, "must be left at their defaults"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(InvalidArgument, match=message):
        DataLoader(Pairs(2), **kwargs)


def test_iterable_dataset_rejects_shuffle_and_batch_sampler():
    with pytest.raises(InvalidArgument, match="shuffle=True with an IterableDataset"):
        DataLoader(Stream(3), shuffle=True)
    with pytest.raises(InvalidArgument, match="batch_sampler with an IterableDataset"):
        DataLoader(Stream(3), batch_sampler=BatchSampler(Pairs(2)))


def test_an_error_in_the_main_process_names_the_sample():
    class Broken(Pairs):
        def __getitem__(self, i):
            if i == 3:
                raise KeyError("no such image")
            return super().__getitem__(i)
    with pytest.raises(KeyError, match="no such image") as info:
        list(DataLoader(Broken(6), batch_size=2))
    assert "loading sample 3" in "".join(info.value.__notes__)


def test_samples_that_cannot_become_tensors_give_a_clear_error():
    class Words(Pairs):
        def __getitem__(self, i):
            return np.array(["a", "b"])
    with pytest.raises(InvalidArgument, match="numpy dtype <U1, which a Tensor cannot hold"):
        next(iter(DataLoader(Words(2), batch_size=2)))


def test_stop_iteration_from_getitem_does_not_end_the_epoch_silently():
    class Ends(Pairs):
        def __getitem__(self, i):
            if i == 3:
                raise StopIteration
            return super().__getitem__(i)
    with pytest.raises(RuntimeError, match="raised StopIteration") as info:
        list(DataLoader(Ends(6), batch_size=2))
    assert "loading sample 3" in "".join(info.value.__notes__)
