"""The notebook magics: `%%paddle_trace` records a cell, `%paddle_graph` draws how a tensor was made.

    %load_ext minipaddle

    %%paddle_trace --values small --max-bytes 16M
    loss = loss_fn(model(x), y)
    loss.backward()

    %paddle_graph loss
    %paddle_graph program            # the default main program; `%paddle_graph program main` any Program

`%%paddle_trace` runs the cell under `paddle.debug.record()` and displays the trace as one MIME
bundle (display.py); the Trace is kept in `_paddle_trace` (and in `-o NAME`). With `--live` the
display refreshes a few times a second while the cell runs (live.py). `%paddle_graph EXPR` shows
the grad-node chain behind a tensor and, if the last `%%paddle_trace` recorded it, its forward ops;
`%paddle_graph program [EXPR]` draws a static Program (blocks, ops, variables, sub-blocks). Inside
`%%paddle_trace`, each `Executor.run` and `apply_passes` goes into the trace too.
"""
from __future__ import annotations

import ast
import re

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

__all__ = ["PaddleMagics", "load_ipython_extension"]

_SIZE = re.compile(r"^(\d+)\s*([kmg]?)i?b?$", re.IGNORECASE)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def byte_size(text: str) -> int:
    """'4096', '512K', '16M', '1G' (powers of 1024) -> bytes; anything else is a usage error."""
    match = _SIZE.match(text.strip())
    if match is None:
        raise UsageError(f"--max-bytes {text!r}: expected a size such as 1048576, 512K, 16M or 1G.")
    return int(match.group(1)) * _UNITS[match.group(2).lower()]


@magics_class
class PaddleMagics(Magics):
    """`%%paddle_trace` and `%paddle_graph`; remembers the last cell's recorder for `%paddle_graph`."""

    def __init__(self, shell=None) -> None:
        super().__init__(shell)
        self.last_recorder = None

    @magic_arguments()
    @argument("--values", choices=("small", "none", "all"), default="small",
              help="tensor values to keep: 'small' tensors only (default), 'none' (summaries only), or 'all'.")
    @argument("--max-bytes", type=str, default="64M", metavar="N",
              help="byte budget of the trace, e.g. 1048576, 512K, 16M (default 64M).")
    @argument("--backward", dest="backward", action="store_true", default=True,
              help="record the backward pass node by node (default).")
    @argument("--no-backward", dest="backward", action="store_false", help="do not record backward steps.")
    @argument("--max-steps", type=int, default=10_000, metavar="N", help="ring buffer length (default 10000).")
    @argument("--live", action="store_true", help="update the display a few times a second while the cell runs.")
    @argument("--interval", type=float, default=0.3, metavar="SECONDS",
              help="with --live: the least time between two updates (default 0.3).")
    @argument("-o", "--out", metavar="NAME", help="also store the Trace in this variable.")
    @cell_magic
    def paddle_trace(self, line: str, cell: str):
        """Run the cell under paddle.debug.record() and display its trace (graph, steps, tensors).

        The Trace is stored in `_paddle_trace`; the cell's last expression is its result, as usual.
        """
        args = parse_argstring(self.paddle_trace, line)
        if not cell.strip():
            raise UsageError("%%paddle_trace: the cell is empty; put the code to record below the magic line.")
        if args.out is not None and not args.out.isidentifier():
            raise UsageError(f"%%paddle_trace: -o {args.out!r} is not a Python variable name.")
        if args.interval <= 0:
            raise UsageError(f"%%paddle_trace: --interval {args.interval} must be > 0 seconds.")
        recorder = _recorder(values=args.values, max_bytes=byte_size(args.max_bytes), backward=args.backward,
                             max_steps=args.max_steps)
        live = None
        if args.live:
            from .live import LiveTrace
            live = LiveTrace(recorder, interval=args.interval)
        try:
            with recorder:
                if live is not None:
                    live.start()
                try:
                    return run_cell_code(self.shell, cell)
                finally:
                    if live is not None:
                        live.stop(final=False)
        finally:  # also when the cell raised: the trace up to the error is what one wants to see
            self._show(recorder, args.out, live)

    def _show(self, recorder, out: str | None, live) -> None:
        from IPython.display import display

        from .display import trace_bundle
        self.last_recorder = recorder
        trace = recorder.trace
        self.shell.user_ns["_paddle_trace"] = trace
        if out:
            self.shell.user_ns[out] = trace
        bundle = trace_bundle(trace)
        if live is not None and live.handle is not None:
            live.handle.update(bundle, raw=True)  # the final view replaces the live one in place
        else:
            display(bundle, raw=True)

    @magic_arguments()
    @argument("--max-nodes", type=int, default=60, metavar="N", help="nodes per part of the graph (default 60).")
    @argument("expr", nargs="*", help="a Python expression whose value is a Tensor; or `program [EXPR]`.")
    @line_magic
    def paddle_graph(self, line: str):
        """Draw the graph that produced a tensor: its grad nodes back to the leaves and, if the last
        %%paddle_trace recorded it, the forward ops that made it and used it. `%paddle_graph program`
        draws paddle.static.default_main_program(); `%paddle_graph program EXPR` the Program EXPR."""
        options, expr = _split_options(line)
        args = parse_argstring(self.paddle_graph, options)
        if not expr:
            raise UsageError("%paddle_graph: give an expression, e.g. `%paddle_graph loss`, or "
                             "`%paddle_graph program [PROGRAM]` for a static Program.")
        if args.max_nodes < 1:
            raise UsageError(f"%paddle_graph: --max-nodes {args.max_nodes} must be >= 1.")
        word, _, rest = expr.partition(" ")
        if word == "program" and (rest.strip() or not self._is_tensor_named("program")):
            return self._show_program(rest.strip())
        value = self._evaluate(expr)
        from ..framework.tensor import Tensor
        if not isinstance(value, Tensor):
            from ..framework.static.program import Program
            if isinstance(value, Program):
                return self._show_program(expr)
            raise UsageError(f"%paddle_graph: {expr!r} has type {type(value).__name__}, expected a minipaddle Tensor "
                             "(or a static Program).")
        from IPython.display import display

        from .display import graph_bundle
        display(graph_bundle(value, self.last_recorder, max_nodes=args.max_nodes), raw=True)


    def _evaluate(self, expr: str):
        try:
            return self.shell.ev(expr)
        except Exception as exc:
            raise UsageError(f"%paddle_graph: could not evaluate {expr!r}: {type(exc).__name__}: {exc}") from None

    def _is_tensor_named(self, name: str) -> bool:
        from ..framework.tensor import Tensor
        return isinstance(self.shell.user_ns.get(name), Tensor)

    def _show_program(self, expr: str) -> None:
        """`%paddle_graph program [EXPR]`: the Program EXPR names (default: the default main program),
        as a trace document holding it and its SVG drawing."""
        from ..framework.static.builder import default_main_program
        from ..framework.static.program import Program
        program = default_main_program() if not expr else self._evaluate(expr)
        if not isinstance(program, Program):
            raise UsageError(f"%paddle_graph program: {expr!r} has type {type(program).__name__}, expected a "
                             "paddle.static.Program.")
        from IPython.display import display

        from ..visualizer.program import show_program
        display(show_program(program, name=expr or "default main program"), raw=True)


def _recorder(**settings):
    import minipaddle as paddle
    from minipaddle.framework.errors import InvalidArgument
    try:
        return paddle.debug.record(**settings)
    except InvalidArgument as exc:  # e.g. --max-bytes below the least budget: say it as a usage error
        raise UsageError(f"%%paddle_trace: {exc}") from None


_OPTION_WITH_VALUE = {"--max-nodes"}


def _split_options(line: str) -> tuple[str, str]:
    """Leading `--options` and the expression after them, left exactly as typed (quotes, spaces)."""
    rest = line.strip()
    options = []
    while rest.startswith("--"):
        token, _, rest = rest.partition(" ")
        options.append(token)
        rest = rest.lstrip()
        if token in _OPTION_WITH_VALUE:
            value, _, rest = rest.partition(" ")
            options.append(value)
            rest = rest.lstrip()
    return " ".join(options), rest


def run_cell_code(shell, cell: str):
    """Run a cell's code as the shell would (magics and all), returning its last expression's value.

    Like %%time: exceptions propagate, so a failing cell fails, and the result shows as the cell's output."""
    source = shell.transform_cell(cell)
    tree = shell.transform_ast(shell.compile.ast_parse(source))
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    filename = shell.compile.cache(source)  # tracebacks show the cell's lines
    namespace = shell.user_ns
    exec(shell.compile(tree, filename, "exec"), namespace)
    if last is None:
        return None
    return eval(shell.compile(last, filename, "eval"), namespace)


def load_ipython_extension(ipython) -> None:
    """`%load_ext minipaddle`: register the magics (a `Trace` displays itself as its MIME bundle)."""
    from .profile_magic import ProfileMagics
    ipython.register_magics(PaddleMagics)
    ipython.register_magics(ProfileMagics)
