"""UCIHousing (Boston house prices), after `paddle.text.datasets.UCIHousing`: 506 rows of 13 features and
a price, read from `housing.data` (whitespace-separated numbers, as Paddle downloads it from
http://paddlemodels.bj.bcebos.com/uci_housing/housing.data) at `<data home>/uci_housing/housing.data`
or `data_file=`.

As Paddle: every feature is centred on its mean and divided by its range (max - min) over the whole
file, then the first 80% of rows are mode "train" and the rest "test". A sample is (features [13],
price [1]), float32.
"""
from __future__ import annotations

import numpy as np

from ...framework.errors import invalid_argument
from ...io.dataset import Dataset
from ...vision.datasets.cifar import check_mode_and_backend, locate

__all__ = ["UCIHousing", "FEATURE_NAMES"]

URL = "http://paddlemodels.bj.bcebos.com/uci_housing/housing.data"
FEATURE_NAMES = ["CRIM", "ZN", "INDUS", "CHAS", "NOX", "RM", "AGE", "DIS", "RAD", "TAX", "PTRATIO", "B", "LSTAT"]


class UCIHousing(Dataset):
    """Boston housing regression data: 13 normalized features -> the median price (in $1000s)."""

    def __init__(self, data_file: str | None = None, mode: str = "train", download: bool = True) -> None:
        self.mode, _ = check_mode_and_backend("UCIHousing", mode, None)
        self.data_file = locate("UCIHousing", data_file, "uci_housing", "housing.data", URL, download, "data_file")
        self.dtype = "float32"
        self._load_data()

    def _load_data(self, feature_num: int = 14, ratio: float = 0.8) -> None:
        with open(self.data_file, encoding="latin1") as f:
            text = f.read()
        try:
            data = np.array(text.split(), dtype=np.float64)
        except ValueError as e:
            raise invalid_argument("UCIHousing", f"{self.data_file} holds something that is not a number ({e}); "
                                                 "expected whitespace-separated numbers, 14 per row.") from None
        if data.size == 0 or data.size % feature_num:
            raise invalid_argument("UCIHousing", f"{self.data_file} holds {data.size} numbers, expected a multiple "
                                                 f"of {feature_num} (13 features and the price per row).")
        data = data.reshape(-1, feature_num)
        maximums, minimums, avgs = data.max(axis=0), data.min(axis=0), data.sum(axis=0) / data.shape[0]
        for i in range(feature_num - 1):
            data[:, i] = (data[:, i] - avgs[i]) / (maximums[i] - minimums[i])
        offset = int(data.shape[0] * ratio)
        self.data = data[:offset] if self.mode == "train" else data[offset:]

    def __getitem__(self, idx):
        row = self.data[idx]
        return np.array(row[:-1]).astype(self.dtype), np.array(row[-1:]).astype(self.dtype)

    def __len__(self) -> int:
        return len(self.data)
