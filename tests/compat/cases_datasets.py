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


@case
def uci_housing_normalizes_and_splits(paddle):
    rows = (np.sin(np.arange(10 * 14) * 0.37) * 10 + 20).reshape(10, 14)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "housing.data")
        with open(path, "w") as f:
            for row in rows:
                f.write(" ".join(f"{v:.5f}" for v in row) + "\n")
        train = paddle.text.datasets.UCIHousing(data_file=path, mode="train")
        test = paddle.text.UCIHousing(data_file=path, mode="test")
        return {"len": [len(train), len(test)], "train[0]": list(train[0]), "test[1]": list(test[1])}


def _imdb_archive(folder):
    reviews = {"aclImdb/train/pos/0_9.txt": b"A great, great movie! Loved it.\n",
               "aclImdb/train/neg/1_2.txt": b"Bad movie; a waste. Bad bad.",
               "aclImdb/train/pos/2_8.txt": b"Great acting and a great story",
               "aclImdb/test/neg/3_1.txt": b"Not great: bad.",
               "aclImdb/test/pos/4_10.txt": b"loved the story.",
               "aclImdb/train/unsup/5_0.txt": b"ignored review words words words",
               "aclImdb/README": b"readme words"}
    path = os.path.join(folder, "aclImdb_v1.tar.gz")
    with tarfile.open(path, "w:gz") as tar:
        for name, text in reviews.items():
            info = tarfile.TarInfo(name)
            info.size = len(text)
            tar.addfile(info, io.BytesIO(text))
    return path


@case
def imdb_tokenizes_and_builds_its_dictionary(paddle):
    with tempfile.TemporaryDirectory() as folder:
        path = _imdb_archive(folder)
        train = paddle.text.datasets.Imdb(data_file=path, mode="train", cutoff=1)
        test = paddle.text.Imdb(data_file=path, mode="test", cutoff=0)
        words = sorted((k.decode() if isinstance(k, bytes) else k, v) for k, v in train.word_idx.items())
        return {"len": [len(train), len(test)], "word_idx": [list(w) for w in words],
                "train": [list(train[i]) for i in range(len(train))], "test": [list(test[i]) for i in range(len(test))]}


def _movielens_zip(folder):
    movies = "1::Toy Story (1995)::Animation|Children's|Comedy\n2::Jumanji (1995)::Adventure|Children's\n" \
             "3::Grumpier Old Men (1995)::Comedy|Romance\n"
    users = "1::F::1::10::48067\n2::M::56::16::70072\n3::M::25::15::55117\n"
    ratings = "".join(f"{1 + i % 3}::{1 + (i * 2) % 3}::{1 + i % 5}::97830{i}\n" for i in range(12))
    path = os.path.join(folder, "ml-1m.zip")
    import zipfile
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("ml-1m/movies.dat", movies.encode("latin"))
        z.writestr("ml-1m/users.dat", users.encode("latin"))
        z.writestr("ml-1m/ratings.dat", ratings.encode("latin"))
    return path


@case
def movielens_samples_and_split(paddle):
    with tempfile.TemporaryDirectory() as folder:
        path = _movielens_zip(folder)
        out = {}
        for mode in ("train", "test"):
            data = paddle.text.datasets.Movielens(data_file=path, mode=mode, test_ratio=0.4, rand_seed=3)
            # category and title-word ids are Python set order in Paddle: compare how many, not which
            out[mode] = [[list(s[0]), list(s[1]), list(s[2]), list(s[3]), list(s[4]), len(s[5]), len(s[6]), list(s[7])]
                         for s in (data[i] for i in range(len(data)))]
        return out


@case
def viterbi_decode(paddle):
    potentials = paddle.to_tensor(np.sin(np.arange(3 * 4 * 5) * 0.9).reshape(3, 4, 5).astype("float32"))
    transitions = paddle.to_tensor(np.cos(np.arange(25) * 0.7).reshape(5, 5).astype("float32"))
    out = {}
    for include in (False, True):
        for lengths in ([4, 2, 3], [3, 1, 1], [1, 1, 1]):
            scores, path = paddle.text.viterbi_decode(potentials, transitions, paddle.to_tensor(lengths, dtype="int64"),
                                                      include)
            out[f"include={include} lengths={lengths}"] = [scores, path]
    decoder = paddle.text.ViterbiDecoder(transitions)
    out["decoder"] = list(decoder(potentials, paddle.to_tensor([2, 4, 1], dtype="int64")))
    out["float64"] = list(paddle.text.viterbi_decode(potentials.astype("float64"), transitions.astype("float64"),
                                                     paddle.to_tensor([4, 4, 4], dtype="int64")))
    return out


def _tree(folder):
    files = {"dog/b.png": "2", "cat/z.jpg": "1", "cat/a.PNG": "0", "cat/sub/c.png": "3", "dog/notes.txt": "x",
             "bird/.keep": "", "top.png": "9"}
    for name, text in files.items():
        path = os.path.join(folder, *name.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)


def _read(path):
    with open(path) as f:
        return f.read()


@case
def dataset_folder_and_image_folder(paddle):
    D = paddle.vision.datasets
    with tempfile.TemporaryDirectory() as folder:
        _tree(folder)
        data = D.DatasetFolder(folder, loader=_read)
        images = D.ImageFolder(folder, loader=_read)
        txt = D.DatasetFolder(folder, loader=_read, extensions=[".txt"])
        rel = lambda p: os.path.relpath(p, folder).replace(os.sep, "/")  # noqa: E731
        return {"classes": data.classes, "class_to_idx": data.class_to_idx, "targets": data.targets,
                "samples": [[rel(p), t] for p, t in data.samples], "items": [list(data[i]) for i in range(len(data))],
                "image folder": [rel(p) for p in images.samples], "image item": images[0],
                "txt": [[rel(p), t] for p, t in txt.samples],
                "upper-case transform": D.DatasetFolder(folder, loader=_read, transform=lambda s: s * 2)[0][0]}


def _ptb_archive(folder):
    texts = {"train": b" the cat sat on the mat \n the dog sat \n a cat ran on the road \n",
             "valid": b" the cat ran \n the dog \n",
             "test": b" the cat sat on a dog \n unknownword the \n"}
    path = os.path.join(folder, "simple-examples.tgz")
    with tarfile.open(path, "w:gz") as tar:
        for split, text in texts.items():
            info = tarfile.TarInfo(f"./simple-examples/data/ptb.{split}.txt")
            info.size = len(text)
            tar.addfile(info, io.BytesIO(text))
    return path


@case
def imikolov_ngrams_and_sequences(paddle):
    with tempfile.TemporaryDirectory() as folder:
        path = _ptb_archive(folder)
        ngram = paddle.text.datasets.Imikolov(data_file=path, data_type="NGRAM", window_size=3, min_word_freq=1)
        seq = paddle.text.Imikolov(data_file=path, data_type="SEQ", mode="test", min_word_freq=1)
        short = paddle.text.Imikolov(data_file=path, data_type="SEQ", window_size=4, min_word_freq=2)
        words = sorted((k.decode() if isinstance(k, bytes) else k, v) for k, v in ngram.word_idx.items())
        return {"word_idx": [list(w) for w in words], "ngrams": [list(ngram[i]) for i in range(len(ngram))],
                "seq test": [list(seq[i]) for i in range(len(seq))], "short": [list(s) for s in short]}


@case
def wmt14_pairs_and_dictionaries(paddle):
    files = {"wmt14/src.dict": b"<s>\n<e>\n<unk>\nle\nchat\nnoir\n", "wmt14/trg.dict": b"<s>\n<e>\n<unk>\nthe\ncat\n",
             "wmt14/train/train": b"le chat noir\tthe black cat\nbroken line\nle chien\tthe dog\n",
             "wmt14/test/test": b"chat\tcat\n", "wmt14/gen/gen": b"noir noir\tblack\n"}
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "wmt14.tgz")
        with tarfile.open(path, "w:gz") as tar:
            for name, data in files.items():
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        train = paddle.text.datasets.WMT14(data_file=path, mode="train", dict_size=5)
        gen = paddle.text.WMT14(data_file=path, mode="gen", dict_size=30)
        src, trg = train.get_dict()
        return {"len": [len(train), len(gen)], "train": [list(train[i]) for i in range(len(train))],
                "gen": list(gen[0]), "src dict": src, "trg": trg,
                "trg reversed": {str(k): v for k, v in train.get_dict(reverse=True)[1].items()},
                "test": list(paddle.text.WMT14(data_file=path, mode="test", dict_size=5)[0])}


@case
def voc2012_split_lists(paddle):
    root = "VOCdevkit/VOC2012/"
    files = {root + "ImageSets/Segmentation/trainval.txt": b"2007_000032\n2007_000039\n2008_000001\n",
             root + "ImageSets/Segmentation/train.txt": b"2007_000032\n",
             root + "ImageSets/Segmentation/val.txt": b"2007_000039\n2008_000001\n"}
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "VOCtrainval_11-May-2012.tar")
        with tarfile.open(path, "w") as tar:
            for name, data in files.items():
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        out = {}
        for mode in ("train", "test", "valid"):
            data = paddle.vision.datasets.VOC2012(data_file=path, mode=mode)
            out[mode] = {"len": len(data), "data": data.data, "labels": data.labels}
            del data
        return out


def _conll_files(folder):
    import gzip
    words = b"The\ncat\nsat\non\nthe\nmat\n\nDogs\nbark\nloudly\n\n"
    props = (b"-    (A0*    (A1*\n-    *)      *)\nsit  (V*)    *\n-    (AM-LOC*  *\n"
             b"rest *       (V*)\n-    *)      *\n\n"
             b"-    (A0*)\nbark (V*)\n-    (AM-MNR*)\n\n")
    path = os.path.join(folder, "conll05st-tests.tar.gz")
    with tarfile.open(path, "w:gz") as tar:
        for name, text in (("conll05st-release/test.wsj/words/test.wsj.words.gz", words),
                           ("conll05st-release/test.wsj/props/test.wsj.props.gz", props)):
            data = gzip.compress(text)
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    dicts = {"word": "the\ncat\nsat\non\nmat\nbos\neos\nDogs\n", "verb": "bark\nsit\nrest\n",
             "target": "B-A0\nI-A0\nB-A1\nI-A1\nB-V\nI-V\nB-AM-LOC\nI-AM-LOC\nB-AM-MNR\nI-AM-MNR\nO\n", "emb": "x"}
    paths = {}
    for key, text in dicts.items():
        paths[key] = os.path.join(folder, key + ".txt")
        with open(paths[key], "w") as f:
            f.write(text)
    return path, paths


@case
def conll05st_samples(paddle):
    with tempfile.TemporaryDirectory() as folder:
        path, d = _conll_files(folder)
        data = paddle.text.datasets.Conll05st(data_file=path, word_dict_file=d["word"], verb_dict_file=d["verb"],
                                              target_dict_file=d["target"], emb_file=d["emb"])
        tags = {v: k for k, v in data.get_dict()[2].items()}     # label ids are set order in Paddle: compare tags
        samples = []
        for i in range(len(data)):
            sample = [a.tolist() for a in data[i]]
            samples.append(sample[:-1] + [[tags[t] for t in sample[-1]]])
        return {"len": len(data), "samples": samples, "labels": sorted(data.get_dict()[2]),
                "embedding is the file": data.get_embedding() == d["emb"]}
