"""paddle.vision.datasets: MNIST and FashionMNIST from local IDX files, Cifar10 and Cifar100 from the
python-version archives (read without unpickling), Flowers from its tgz and .mat files, DatasetFolder and
ImageFolder from a folder of your files, VOC2012 from its tar; nothing is downloaded at run time."""
from __future__ import annotations

from .cifar import *  # noqa: F401,F403
from .cifar import __all__ as _cifar_all
from .flowers import Flowers  # noqa: F401
from .folder import DatasetFolder, ImageFolder  # noqa: F401
from .voc2012 import VOC2012  # noqa: F401
from .idx import *  # noqa: F401,F403
from .idx import __all__ as _idx_all
from .mnist import *  # noqa: F401,F403
from .mnist import __all__ as _mnist_all

__all__ = [*_mnist_all, *_cifar_all, "Flowers", "DatasetFolder", "ImageFolder", "VOC2012",
           *_idx_all]
