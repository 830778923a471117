"""Movielens 1M ratings, after `paddle.text.datasets.Movielens`: read from `ml-1m.zip` (as Paddle downloads
it from https://dataset.bj.bcebos.com/movielens%2Fml-1m.zip) at `<data home>/sentiment/ml-1m.zip` (Paddle's
folder for it) or `data_file=`.

A sample, as Paddle: (user id [1], gender [1] (0 male, 1 female), age bucket [1] (index into
AGE_TABLE), job [1], movie id [1], category ids [k], title word ids [m], score [1] = rating * 2 - 5).
Each rating line goes to "test" when a uniform draw from a generator seeded with `rand_seed` is below
`test_ratio` -- the same draws as Paddle's `np.random.seed(rand_seed); np.random.random()`, without
touching numpy's global generator. Category and title-word ids are numbered in sorted order; Paddle
numbers them in Python set order, which changes from run to run (string hashing is randomized).
"""
from __future__ import annotations

import re
import zipfile

import numpy as np

from ...framework.errors import invalid_argument
from ...io.dataset import Dataset
from ...vision.datasets.cifar import check_mode_and_backend, locate

__all__ = ["Movielens", "MovieInfo", "UserInfo", "AGE_TABLE"]

URL = "https://dataset.bj.bcebos.com/movielens%2Fml-1m.zip"
AGE_TABLE = [1, 18, 25, 35, 45, 50, 56]
_TITLE_YEAR = re.compile(r"^(.*)\((\d+)\)$")


class MovieInfo:
    """One line of movies.dat: id, title (without its year) and categories."""

    def __init__(self, index: str, categories: list[str], title: str) -> None:
        self.index, self.categories, self.title = int(index), categories, title

    def value(self, categories_dict: dict, movie_title_dict: dict) -> list:
        return [[self.index], [categories_dict[c] for c in self.categories],
                [movie_title_dict[w.lower()] for w in self.title.split()]]

    def __repr__(self) -> str:
        return f"<MovieInfo id({self.index}), title({self.title}), categories({self.categories})>"


class UserInfo:
    """One line of users.dat: id, gender, age bucket and job."""

    def __init__(self, index: str, gender: str, age: str, job_id: str) -> None:
        self.index, self.is_male, self.job_id = int(index), gender == "M", int(job_id)
        if int(age) not in AGE_TABLE:
            raise invalid_argument("Movielens", f"user {index} has age {age}, expected one of {AGE_TABLE}.")
        self.age = AGE_TABLE.index(int(age))

    def value(self) -> list:
        return [[self.index], [0 if self.is_male else 1], [self.age], [self.job_id]]

    def __repr__(self) -> str:
        return (f"<UserInfo id({self.index}), gender({'M' if self.is_male else 'F'}), age({AGE_TABLE[self.age]}), "
                f"job({self.job_id})>")


def _lines(package: zipfile.ZipFile, name: str, data_file: str) -> list[list[str]]:
    try:
        with package.open(f"ml-1m/{name}") as f:
            return [line.decode("latin").strip().split("::") for line in f if line.strip()]
    except KeyError:
        raise invalid_argument("Movielens", f"{data_file} has no ml-1m/{name}; expected the ml-1m archive "
                                            "(movies.dat, users.dat, ratings.dat).") from None


class Movielens(Dataset):
    """MovieLens 1M: 1 000 209 ratings of 3 900 movies by 6 040 users, split train/test at random."""

    def __init__(self, data_file: str | None = None, mode: str = "train", test_ratio: float = 0.1,
                 rand_seed: int = 0, download: bool = True) -> None:
        self.mode, _ = check_mode_and_backend("Movielens", mode, None)
        self.data_file = locate("Movielens", data_file, "sentiment", "ml-1m.zip", URL, download, "data_file")
        self.test_ratio, self.rand_seed = test_ratio, rand_seed
        try:
            with zipfile.ZipFile(self.data_file) as package:
                self._load_meta_info(package)
                self._load_data(package)
        except zipfile.BadZipFile as e:
            raise invalid_argument("Movielens", f"{self.data_file} is not a readable zip archive ({e}).") from None

    def _load_meta_info(self, package: zipfile.ZipFile) -> None:
        self.movie_info, self.user_info = {}, {}
        words, categories = set(), set()
        for movie_id, title, kinds in _lines(package, "movies.dat", self.data_file):
            kinds = kinds.split("|")
            categories.update(kinds)
            match = _TITLE_YEAR.match(title)
            title = match.group(1) if match else title
            self.movie_info[int(movie_id)] = MovieInfo(movie_id, kinds, title)
            words.update(w.lower() for w in title.split())
        self.movie_title_dict = {w: i for i, w in enumerate(sorted(words))}
        self.categories_dict = {c: i for i, c in enumerate(sorted(categories))}
        for uid, gender, age, job, _ in _lines(package, "users.dat", self.data_file):
            self.user_info[int(uid)] = UserInfo(uid, gender, age, job)

    def _load_data(self, package: zipfile.ZipFile) -> None:
        draws = np.random.RandomState(self.rand_seed)
        is_test = self.mode == "test"
        self.data = []
        for uid, movie_id, rating, _ in _lines(package, "ratings.dat", self.data_file):
            if (draws.random_sample() < self.test_ratio) != is_test:
                continue
            user, movie = self.user_info[int(uid)], self.movie_info[int(movie_id)]
            self.data.append(user.value() + movie.value(self.categories_dict, self.movie_title_dict)
                             + [[float(rating) * 2 - 5.0]])

    def __getitem__(self, idx):
        return tuple(np.array(d) for d in self.data[idx])

    def __len__(self) -> int:
        return len(self.data)
