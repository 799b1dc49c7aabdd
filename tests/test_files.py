import os

import pytest

from gubs_env.support.files import FileTooLargeError, read_bounded, write_atomically


def test_a_file_within_the_limit_is_read_whole(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"abc")
    assert read_bounded(path, 3) == b"abc"


def test_a_longer_file_is_refused_after_reading_one_byte_past_the_limit(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"abcd")
    with pytest.raises(FileTooLargeError, match="over 3 bytes"):
        read_bounded(path, 3)


def test_an_endless_device_is_refused_quickly():
    with pytest.raises(FileTooLargeError):
        read_bounded("/dev/zero", 1024)


def test_a_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(OSError):
        read_bounded(tmp_path / "missing", 10)


def test_an_atomic_write_leaves_no_temporary_file_and_replaces_the_old_content(tmp_path):
    path = tmp_path / "sub" / "f.json"
    write_atomically(path, b"old")
    write_atomically(path, b"new")
    assert path.read_bytes() == b"new"
    assert os.listdir(path.parent) == ["f.json"]


def test_the_first_free_folder_skips_taken_ones(tmp_path):
    from gubs_env.support.files import first_free_folder

    taken = {tmp_path / "run", tmp_path / "run-2"}
    assert first_free_folder(tmp_path / "run", taken.__contains__) == tmp_path / "run-3"
    assert first_free_folder(tmp_path / "other", taken.__contains__) == tmp_path / "other"


def test_an_atomic_write_to_a_device_or_pipe_writes_through_and_keeps_it(tmp_path):
    # renaming a temporary file over /dev/null would replace the device (root may): a pipe stands in for it here
    import stat
    import threading

    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_bytes()))
    reader.start()
    write_atomically(pipe, b"record")
    reader.join(timeout=10)
    assert received == [b"record"]
    assert stat.S_ISFIFO(pipe.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]  # no temporary file left beside it
