"""paddle.io: datasets, samplers, collating and the DataLoader.

    from minipaddle.io import DataLoader, TensorDataset
    ds = TensorDataset([paddle.randn([100, 3]), paddle.arange(100)])
    for x, y in DataLoader(ds, batch_size=32, shuffle=True):
        ...
"""
from __future__ import annotations

from .collate import *  # noqa: F401,F403
from .collate import __all__ as _collate_all
from .dataloader import *  # noqa: F401,F403
from .dataloader import __all__ as _dataloader_all
from .dataset import *  # noqa: F401,F403
from .dataset import __all__ as _dataset_all
from .sampler import *  # noqa: F401,F403
from .sampler import __all__ as _sampler_all
from .worker import *  # noqa: F401,F403
from .worker import __all__ as _worker_all

__all__ = [*_dataset_all, *_sampler_all, *_collate_all, *_dataloader_all, *_worker_all]
