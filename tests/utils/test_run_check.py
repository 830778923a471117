"""paddle.utils.run_check trains a tiny model eagerly and statically and says so."""
from __future__ import annotations

import minipaddle as paddle


def test_run_check_reports_success_and_leaves_the_mode_alone(capsys):
    assert paddle.utils.run_check() is None
    assert "minipaddle works well on 1 CPU." in capsys.readouterr().out
    assert paddle.in_dynamic_mode()
    paddle.enable_static()
    try:
        paddle.utils.run_check()
        assert not paddle.in_dynamic_mode()
    finally:
        paddle.disable_static()
