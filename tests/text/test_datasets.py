"""paddle.text datasets from tiny files of the real formats: what a sample is, the dictionaries and splits,
and clear errors when a file is absent or not what it should be. Paddle's own answers are in
tests/compat/cases_datasets.py."""
from __future__ import annotations

import io
import tarfile
import zipfile

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument
from minipaddle.text.datasets import Imdb, Movielens, UCIHousing
from minipaddle.vision.datasets import DatasetFileNotFound


def test_uci_housing_normalizes_each_feature_by_its_range(tmp_path):
    rows = np.arange(5 * 14, dtype=float).reshape(5, 14) ** 1.5
    path = tmp_path / "housing.data"
    path.write_text("\n".join(" ".join(str(v) for v in row) for row in rows))
    train, test = UCIHousing(str(path)), UCIHousing(str(path), mode="test")
    assert (len(train), len(test)) == (4, 1)
    features, price = test[0]
    want = (rows[4, :13] - rows[:, :13].mean(0)) / (rows[:, :13].max(0) - rows[:, :13].min(0))
    np.testing.assert_allclose(features, want.astype("float32"), rtol=1e-6)
    assert price.shape == (1,) and price.dtype == np.float32 and price[0] == pytest.approx(rows[4, 13])
    assert paddle.text.UCIHousing is UCIHousing


def test_uci_housing_refuses_a_ragged_file(tmp_path):
    path = tmp_path / "housing.data"
    path.write_text("1 2 3\n4 5\n")
    with pytest.raises(InvalidArgument, match="holds 5 numbers, expected a multiple of 14"):
        UCIHousing(str(path))


def _tar(path, files):
    with tarfile.open(path, "w:gz") as tar:
        for name, text in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(text)
            tar.addfile(info, io.BytesIO(text))
    return str(path)


def test_imdb_words_labels_and_unknowns(tmp_path):
    path = _tar(tmp_path / "aclImdb_v1.tar.gz", {
        "aclImdb/train/pos/1.txt": b"Good, good film.", "aclImdb/train/neg/2.txt": b"Bad film!",
        "aclImdb/test/pos/3.txt": b"good plot"})
    data = Imdb(path, cutoff=1)
    assert data.word_idx == {b"good": 0, b"film": 1, "<unk>": 2}
    ids, label = data[0]
    assert ids.tolist() == [0, 0, 1] and label.tolist() == [0]          # positive reviews are label 0
    assert data[1][0].tolist() == [2, 1] and data[1][1].tolist() == [1]
    assert len(Imdb(path, mode="test", cutoff=1)) == 1
    with pytest.raises(InvalidArgument, match="no word of .* occurs more than cutoff=150"):
        Imdb(path)


def _movielens(path, ratings):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("ml-1m/movies.dat", "1::Toy Story (1995)::Animation|Comedy\n2::Heat (1995)::Action\n")
        z.writestr("ml-1m/users.dat", "1::F::18::3::1\n2::M::56::7::2\n")
        z.writestr("ml-1m/ratings.dat", ratings)
    return str(path)


def test_movielens_samples_and_a_reproducible_split(tmp_path):
    lines = "".join(f"{1 + i % 2}::{1 + i % 2}::{1 + i % 5}::0\n" for i in range(20))
    path = _movielens(tmp_path / "ml-1m.zip", lines)
    global_state = np.random.get_state()[1].copy()
    train = Movielens(path, test_ratio=0.3, rand_seed=5)
    np.testing.assert_array_equal(np.random.get_state()[1], global_state)    # numpy's global generator untouched
    test = Movielens(path, mode="test", test_ratio=0.3, rand_seed=5)
    draws = np.random.RandomState(5).random_sample(20)
    assert len(test) == int((draws < 0.3).sum()) and len(train) + len(test) == 20
    user, gender, age, job, movie, categories, title, score = train[0]
    assert user.tolist() in ([1], [2]) and gender.tolist() == [1 - (user[0] - 1)]
    assert {1: [1], 2: [6]}[int(user[0])] == age.tolist()                 # age bucket: index in AGE_TABLE
    assert train.categories_dict == {"Action": 0, "Animation": 1, "Comedy": 2}
    assert train.movie_title_dict == {"heat": 0, "story": 1, "toy": 2}
    assert score.dtype == np.float64 and score[0] in (-3.0, -1.0, 1.0, 3.0, 5.0)


def test_movielens_and_imdb_refuse_wrong_archives(tmp_path):
    with zipfile.ZipFile(tmp_path / "x.zip", "w") as z:
        z.writestr("other.txt", "x")
    with pytest.raises(InvalidArgument, match="has no ml-1m/movies.dat"):
        Movielens(str(tmp_path / "x.zip"))
    (tmp_path / "bad.tar.gz").write_bytes(b"not a tar")
    with pytest.raises(InvalidArgument, match="is not a readable tar archive"):
        Imdb(str(tmp_path / "bad.tar.gz"))


@pytest.mark.parametrize("make, filename", [(UCIHousing, "uci_housing/housing.data"), (Imdb, "imdb/aclImdb_v1.tar.gz"),
                                            (Movielens, "sentiment/ml-1m.zip")])
def test_absent_files_say_where_to_put_them(tmp_path, monkeypatch, make, filename):
    monkeypatch.setenv("MINIPADDLE_DATA_HOME", str(tmp_path))
    with pytest.raises(DatasetFileNotFound, match=f"{filename} was not found; minipaddle never downloads"):
        make()


def _ptb(tmp_path):
    return _tar(tmp_path / "simple-examples.tgz", {
        "./simple-examples/data/ptb.train.txt": b"a b a\nb a\n", "./simple-examples/data/ptb.valid.txt": b"a c\n",
        "./simple-examples/data/ptb.test.txt": b"a z\n"})


def test_imikolov_dictionary_ngrams_and_sequences(tmp_path):
    from minipaddle.text.datasets import Imikolov
    path = _ptb(tmp_path)
    grams = Imikolov(path, window_size=2, min_word_freq=0)
    # counts: a 4, <s> 3, <e> 3, b 2, c 1 -> a, <e>, <s>, b, c, then <unk>
    assert grams.word_idx == {b"a": 0, "<e>": 1, "<s>": 2, b"b": 3, b"c": 4, "<unk>": 5}
    assert [tuple(int(v) for v in g) for g in grams][:4] == [(2, 0), (0, 3), (3, 0), (0, 1)]
    test = Imikolov(path, data_type="SEQ", mode="test", min_word_freq=0)
    assert [s.tolist() for s in test[0]] == [[2, 0, 5], [0, 5, 1]]                   # z is unknown
    with pytest.raises(InvalidArgument, match="data_type 'NGRAM' needs window_size >= 1"):
        Imikolov(path)
    with pytest.raises(InvalidArgument, match="data_type got 'BAG'"):
        Imikolov(path, data_type="BAG")


def test_wmt14_pairs_dictionaries_and_errors(tmp_path):
    from minipaddle.text.datasets import WMT14
    path = _tar(tmp_path / "wmt14.tgz", {"d/src.dict": b"<s>\n<e>\n<unk>\na\nb\n",
                                        "d/trg.dict": b"<s>\n<e>\n<unk>\nx\n",
                                        "d/train/train": b"a b\tx y\n" + b"a " * 80 + b"\tx\n"})
    data = WMT14(path, dict_size=4)
    assert len(data) == 1                                                   # the 82-id source is skipped
    src, trg, trg_next = (a.tolist() for a in data[0])
    assert src == [0, 3, 2, 1] and trg == [0, 3, 2] and trg_next == [3, 2, 1]   # b is past dict_size: <unk>
    assert data.get_dict(reverse=True)[0][3] == "a"
    with pytest.raises(InvalidArgument, match="dict_size must be a positive int"):
        WMT14(path)
    with pytest.raises(InvalidArgument, match="mode got 'dev'"):
        WMT14(path, mode="dev", dict_size=4)


def test_conll05st_bio_tags_and_missing_files(tmp_path, monkeypatch):
    from minipaddle.text.datasets import Conll05st
    from minipaddle.text.datasets.conll05 import bio_tags
    assert bio_tags(["(A0*", "*", "*)", "(V*)", "*", "(A1*)"]) == ["B-A0", "I-A0", "I-A0", "B-V", "O", "B-A1"]
    with pytest.raises(InvalidArgument, match="unexpected label 'A0'"):
        bio_tags(["A0"])
    monkeypatch.setenv("MINIPADDLE_DATA_HOME", str(tmp_path))
    with pytest.raises(DatasetFileNotFound, match="conll05st/conll05st-tests.tar.gz was not found"):
        Conll05st()
