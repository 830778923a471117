"""Golden cases: vision transforms on grey (H x W) images, and the beginner MNIST pipeline
Normalize -> DataLoader -> conv2d, which needs [N, 1, 28, 28] batches."""
import numpy as np

from .harness import case, dtype_name

GREY = (np.arange(12).reshape(3, 4) * 20).astype("uint8")     # an H x W image, as MNIST's are


@case
def normalize_chw_makes_a_grey_image_1_h_w(paddle):
    T = paddle.vision.transforms
    return {"uint8": T.Normalize(mean=[127.5], std=[127.5], data_format="CHW")(GREY),
            "float32": T.Normalize(mean=[127.5], std=[127.5], data_format="CHW")(GREY.astype("float32"))}


@case
def normalize_hwc_on_a_grey_image(paddle):
    T = paddle.vision.transforms
    return T.Normalize(mean=[127.5], std=[127.5], data_format="HWC")(GREY)


@case
def normalize_with_a_scalar_mean_uses_three_channels(paddle):
    T = paddle.vision.transforms
    return T.Normalize(mean=127.5, std=127.5)(GREY)


@case
def normalize_colour_images(paddle):
    T = paddle.vision.transforms
    chw = np.arange(24, dtype="float32").reshape(3, 2, 4)
    hwc = np.arange(24, dtype="float32").reshape(2, 4, 3)
    mean, std = [1.0, 2.0, 3.0], [2.0, 4.0, 8.0]
    return {"CHW": T.Normalize(mean, std, data_format="CHW")(chw),
            "HWC": T.Normalize(mean, std, data_format="HWC")(hwc),
            "CHW tensor": T.Normalize(mean, std, data_format="CHW")(paddle.to_tensor(chw)),
            "to_rgb": T.Normalize(mean, std, data_format="HWC", to_rgb=True)(hwc)}


@case
def to_tensor_of_a_grey_image(paddle):
    T = paddle.vision.transforms
    return T.ToTensor()(GREY)


@case
def mnist_style_pipeline_gives_n_1_28_28_batches(paddle):
    T = paddle.vision.transforms

    class Digits(paddle.io.Dataset):   # what MNIST hands its transform: one 28 x 28 grey image
        def __init__(self, transform):
            super().__init__()
            self.transform = transform

        def __getitem__(self, idx):
            image = ((np.arange(784).reshape(28, 28) * (idx + 1)) % 256).astype("uint8")
            return self.transform(image), np.array([idx % 10]).astype("int64")

        def __len__(self):
            return 6

    transform = T.Normalize(mean=[127.5], std=[127.5], data_format="CHW")
    loader = paddle.io.DataLoader(Digits(transform), batch_size=4, shuffle=False)
    images, labels = next(iter(loader))
    conv = paddle.nn.Conv2D(1, 2, 5, weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.01)))
    features = conv(images)
    return {"sample": list(Digits(transform)[0][0].shape), "images": [list(images.shape), dtype_name(images.dtype)],
            "labels": [list(labels.shape), dtype_name(labels.dtype)],
            "conv": [list(features.shape), float(features.sum())],
            "batches": [list(b[0].shape) for b in loader]}


def _write_mnist_files(folder):
    """100 28 x 28 images and labels as the standard gzip IDX files (Paddle's reader takes 100 at a time)."""
    import gzip
    import os
    import struct
    images = (np.arange(100 * 784).reshape(100, 784) % 251).astype("uint8")
    labels = (np.arange(100) % 10).astype("uint8")
    image_path, label_path = os.path.join(folder, "images-idx3-ubyte.gz"), os.path.join(folder, "labels-idx1-ubyte.gz")
    with gzip.open(image_path, "wb") as f:
        f.write(struct.pack(">IIII", 2051, 100, 28, 28) + images.tobytes())
    with gzip.open(label_path, "wb") as f:
        f.write(struct.pack(">II", 2049, 100) + labels.tobytes())
    return image_path, label_path


@case
def mnist_hands_its_transform_a_28_28_image_and_normalize_makes_it_1_28_28(paddle):
    import tempfile
    seen = {}

    def look(image):   # what the dataset hands its transform (Paddle: a PIL image; minipaddle: its pixels)
        pixels = np.asarray(image)
        seen.setdefault("pil", [list(pixels.shape), str(pixels.dtype)])
        return image

    def look_cv2(image):
        seen.setdefault("cv2", [list(np.asarray(image).shape), str(np.asarray(image).dtype)])
        return image

    with tempfile.TemporaryDirectory() as folder:
        image_path, label_path = _write_mnist_files(folder)
        MNIST = paddle.vision.datasets.MNIST
        MNIST(image_path=image_path, label_path=label_path, mode="train", transform=look, download=False)[3]
        MNIST(image_path=image_path, label_path=label_path, mode="train", transform=look_cv2, backend="cv2",
              download=False)[3]
        normalize = paddle.vision.transforms.Normalize(mean=[127.5], std=[127.5], data_format="CHW")
        train = MNIST(image_path=image_path, label_path=label_path, mode="train", transform=normalize,
                      download=False)
        image, label = train[3]
        images, labels = next(iter(paddle.io.DataLoader(train, batch_size=8, shuffle=False)))
        conv = paddle.nn.Conv2D(1, 6, 3, weight_attr=paddle.ParamAttr(
            initializer=paddle.nn.initializer.Constant(0.1)))
        return {"handed to the transform": seen, "sample": [image, label],
                "batch": [list(images.shape), dtype_name(images.dtype), list(labels.shape)],
                "conv2d": list(conv(images).shape), "first pixels": images[0, 0, 0, :4]}


def _deterministic_parameters(paddle, model):
    """Give every parameter fixed values (Paddle and minipaddle draw different random inits)."""
    for i, p in enumerate(model.parameters()):
        n = int(np.prod(p.shape))
        values = np.cos(np.arange(n, dtype="float64") * 0.37 + i) * (0.5 / np.sqrt(max(p.shape[-1], 1)))
        p.set_value(values.reshape(p.shape).astype("float32"))


@case
def beginner_mnist_lenet_trains_like_paddle(paddle):
    """Paddle's quick start: MNIST + Normalize, LeNet, Adam, CrossEntropyLoss, accuracy (eager loop)."""
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        image_path, label_path = _write_mnist_files(folder)
        transform = paddle.vision.transforms.Normalize(mean=[127.5], std=[127.5], data_format="CHW")
        train_dataset = paddle.vision.datasets.MNIST(image_path=image_path, label_path=label_path, mode="train",
                                                     transform=transform, download=False)
        train_loader = paddle.io.DataLoader(train_dataset, batch_size=25, shuffle=False)
        model = paddle.vision.models.LeNet(num_classes=10)
        _deterministic_parameters(paddle, model)
        model.train()
        optim = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())
        loss_fn = paddle.nn.CrossEntropyLoss()
        losses, accs = [], []
        for data in train_loader():
            x_data, y_data = data
            predicts = model(x_data)
            loss = loss_fn(predicts, y_data)
            acc = paddle.metric.accuracy(predicts, y_data)
            loss.backward()
            optim.step()
            optim.clear_grad()
            losses.append(float(loss))
            accs.append(float(acc))
        return {"losses": losses, "accuracy": accs, "batches": len(losses)}
