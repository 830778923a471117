"""Conll05st (CoNLL-2005 semantic role labelling, the WSJ test set), after `paddle.text.datasets.Conll05st`.

Read from the files Paddle downloads into `<data home>/conll05st/` (or given as arguments):
conll05st-tests.tar.gz (words and props of test.wsj, gzip files inside the tar), conll05st%2FwordDict.txt,
conll05st%2FverbDict.txt, conll05st%2FtargetDict.txt (one entry per line) and conll05st%2Femb (the
embedding file: only its path is used, by get_embedding()).

A sentence with k predicates gives k samples. Each argument column of the props file is turned into BIO
tags ("(A0*" opens A0: B-A0, then I-A0 until "*)"; "*" outside is O). A sample, as Paddle: word ids, the
ids of the words at -2, -1, 0, +1, +2 around the predicate (each repeated over the sentence; "bos"/"eos"
past the ends), the predicate's id, the 0/1 mark of those five positions, and the label ids. The label
dictionary numbers B-/I- pairs of the tags of targetDict in sorted order, then O (Paddle uses Python set
order, which changes from run to run).
"""
from __future__ import annotations

import gzip
import io
import tarfile

import numpy as np

from ...framework.errors import invalid_argument
from ...io.dataset import Dataset
from ...vision.datasets.cifar import locate

__all__ = ["Conll05st"]

URL = "http://paddlemodels.bj.bcebos.com/conll05st/"
UNK_IDX = 0
WORDS = "conll05st-release/test.wsj/words/test.wsj.words.gz"
PROPS = "conll05st-release/test.wsj/props/test.wsj.props.gz"


def _load_dict(path: str) -> dict[str, int]:
    with open(path, encoding="utf-8") as f:
        return {line.strip(): i for i, line in enumerate(f)}


def _load_label_dict(path: str) -> dict[str, int]:
    with open(path, encoding="utf-8") as f:
        tags = sorted({line.strip()[2:] for line in f if line.strip().startswith(("B-", "I-"))})
    labels = {}
    for tag in tags:
        labels["B-" + tag], labels["I-" + tag] = len(labels), len(labels) + 1
    labels["O"] = len(labels)
    return labels


def bio_tags(column: list[str]) -> list[str]:
    """One argument column of a props file ("(A0*", "*", "*)", "(V*)", ...) as BIO tags."""
    tags, current, inside = [], "O", False
    for mark in column:
        if mark == "*":
            tags.append("I-" + current if inside else "O")
        elif mark == "*)":
            tags.append("I-" + current)
            inside = False
        elif "(" in mark:
            current = mark[1:mark.find("*")]
            tags.append("B-" + current)
            inside = ")" not in mark
        else:
            raise invalid_argument("Conll05st", f"unexpected label {mark!r} in the props file.")
    return tags


def _sentences(words: list[bytes], props: list[bytes]):
    """(words of a sentence, its props columns), for each sentence ended by an empty props line."""
    sentence, rows = [], []
    for word, prop in zip(words, props):
        columns = prop.strip().decode().split()
        if not columns:
            if rows:
                yield sentence, [[row[i] for row in rows] for i in range(len(rows[0]))]
            sentence, rows = [], []
        else:
            sentence.append(word.strip().decode())
            rows.append(columns)


class Conll05st(Dataset):
    """Semantic role labelling samples of the CoNLL-2005 WSJ test sentences."""

    def __init__(self, data_file: str | None = None, word_dict_file: str | None = None,
                 verb_dict_file: str | None = None, target_dict_file: str | None = None, emb_file: str | None = None,
                 download: bool = True) -> None:
        name, folder = "Conll05st", "conll05st"
        self.data_file = locate(name, data_file, folder, "conll05st-tests.tar.gz", URL + "conll05st-tests.tar.gz",
                                download, "data_file")
        files = {}
        for arg, given, stem in (("word_dict_file", word_dict_file, "wordDict.txt"),
                                 ("verb_dict_file", verb_dict_file, "verbDict.txt"),
                                 ("target_dict_file", target_dict_file, "targetDict.txt"),
                                 ("emb_file", emb_file, "emb")):
            files[arg] = locate(name, given, folder, f"conll05st%2F{stem}", f"{URL[:-1]}%2F{stem}", download, arg)
        self.word_dict_file, self.verb_dict_file = files["word_dict_file"], files["verb_dict_file"]
        self.target_dict_file, self.emb_file = files["target_dict_file"], files["emb_file"]
        self.word_dict = _load_dict(self.word_dict_file)
        self.predicate_dict = _load_dict(self.verb_dict_file)
        self.label_dict = _load_label_dict(self.target_dict_file)
        self._load_anno()

    def _member_lines(self, archive: tarfile.TarFile, member: str) -> list[bytes]:
        try:
            data = archive.extractfile(member).read()
        except KeyError:
            raise invalid_argument("Conll05st", f"{self.data_file} has no {member}.") from None
        return gzip.GzipFile(fileobj=io.BytesIO(data)).read().splitlines()

    def _load_anno(self) -> None:
        try:
            with tarfile.open(self.data_file) as archive:
                words, props = self._member_lines(archive, WORDS), self._member_lines(archive, PROPS)
        except (tarfile.TarError, OSError) as e:
            raise invalid_argument("Conll05st", f"{self.data_file} is not a readable tar archive ({e}).") from None
        self.sentences, self.predicates, self.labels = [], [], []
        for sentence, columns in _sentences(words, props):
            verbs = [v for v in columns[0] if v != "-"]
            for i, column in enumerate(columns[1:]):
                self.sentences.append(sentence)
                self.predicates.append(verbs[i])
                self.labels.append(bio_tags(column))

    def __getitem__(self, idx):
        sentence, predicate, labels = self.sentences[idx], self.predicates[idx], self.labels[idx]
        n = len(sentence)
        verb = labels.index("B-V")
        mark = [0] * n
        context = []
        for offset, outside in ((-2, "bos"), (-1, "bos"), (0, None), (1, "eos"), (2, "eos")):
            position = verb + offset
            if 0 <= position < n:
                mark[position] = 1
                context.append(sentence[position])
            else:
                context.append(outside)
        word_idx = [self.word_dict.get(w, UNK_IDX) for w in sentence]
        ctx = [[self.word_dict.get(w, UNK_IDX)] * n for w in context]
        pred_idx = [self.predicate_dict.get(predicate)] * n
        label_idx = [self.label_dict.get(t) for t in labels]
        return tuple(np.array(a) for a in (word_idx, *ctx, pred_idx, mark, label_idx))

    def __len__(self) -> int:
        return len(self.sentences)

    def get_dict(self) -> tuple[dict, dict, dict]:
        """(word dictionary, predicate dictionary, label dictionary)."""
        return self.word_dict, self.predicate_dict, self.label_dict

    def get_embedding(self) -> str:
        """The path of the embedding file."""
        return self.emb_file
