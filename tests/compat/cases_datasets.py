"""Golden cases: datasets read from tiny files in the formats Paddle downloads (CIFAR python archives with
pickled batches, UCI housing's whitespace table): what a sample is, in order, dtypes and shapes."""
import io
import os
import pickle
import tarfile
import tempfile

import numpy as np

from .harness import case, outcome


def _cifar_archive(folder, top, members):
    """A .tar.gz laid out like cifar-10/100-python.tar.gz; each member a protocol-2 pickled dict (as CIFAR's)."""
    path = os.path.join(folder, f"{top}.tar.gz")
    with tarfile.open(path, "w:gz") as tar:
        for name, batch in members.items():
            data = pickle.dumps(batch, protocol=2)
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def _pixels(count, seed):
    return ((np.arange(count * 3072) * seed) % 251).astype(np.uint8).reshape(count, 3072)


def _sample(item):
    image, label = item
    image = np.asarray(image)
    return {"corner": image[:3, :3], "shape": list(image.shape), "dtype": str(image.dtype),
            "sum": float(image.astype("float64").sum()), "label": label}


@case
def cifar10_from_the_python_archive(paddle):
    with tempfile.TemporaryDirectory() as folder:
        path = _cifar_archive(folder, "cifar-10-batches-py", {
            "data_batch_2": {b"batch_label": b"training batch 2 of 5", b"labels": [7, 1],
                             b"data": _pixels(2, 5), b"filenames": [b"c.png", b"d.png"]},
            "data_batch_1": {b"batch_label": b"training batch 1 of 5", b"labels": [3, 9, 0],
                             b"data": _pixels(3, 3), b"filenames": [b"a.png", b"b.png", b"e.png"]},
            "test_batch": {b"batch_label": b"testing batch 1 of 1", b"labels": [4], b"data": _pixels(1, 7),
                           b"filenames": [b"t.png"]},
            "batches.meta": {b"label_names": [b"airplane"], b"num_vis": 3072}})
        datasets = paddle.vision.datasets
        train = datasets.Cifar10(data_file=path, mode="train", backend="cv2")
        test = datasets.Cifar10(data_file=path, mode="test", backend="cv2")
        pil = datasets.Cifar10(data_file=path, mode="train", backend="pil")
        T = paddle.vision.transforms
        normalized = datasets.Cifar10(data_file=path, mode="test", backend="cv2",
                                      transform=T.Normalize(mean=[127.5] * 3, std=[127.5] * 3, data_format="HWC"))
        return {"len": [len(train), len(test)], "train[0]": _sample(train[0]), "train[4]": _sample(train[4]),
                "labels in order": [int(train[i][1]) for i in range(len(train))],
                "test[0] label": test[0][1], "pil[1]": _sample(pil[1]),
                "normalized": normalized[0][0][:2, :2],
                "bad backend": outcome(lambda: datasets.Cifar10(data_file=path, backend="opencv"))}


@case
def cifar100_reads_the_fine_labels(paddle):
    with tempfile.TemporaryDirectory() as folder:
        path = _cifar_archive(folder, "cifar-100-python", {
            "train": {b"filenames": [b"x.png", b"y.png"], b"batch_label": b"training batch 1 of 1",
                      b"fine_labels": [55, 12], b"coarse_labels": [4, 1], b"data": _pixels(2, 11)},
            "test": {b"filenames": [b"z.png"], b"batch_label": b"testing batch 1 of 1", b"fine_labels": [99],
                     b"coarse_labels": [19], b"data": _pixels(1, 13)},
            "meta": {b"fine_label_names": [b"apple"], b"coarse_label_names": [b"fish"]}})
        train = paddle.vision.datasets.Cifar100(data_file=path, mode="train", backend="cv2")
        test = paddle.vision.datasets.Cifar100(data_file=path, mode="test", backend="cv2")
        return {"len": [len(train), len(test)], "train[1]": _sample(train[1]), "test[0]": _sample(test[0])}
