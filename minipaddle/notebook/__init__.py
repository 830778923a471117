"""Notebook front door: charts and, with the recorder, the `%%paddle_trace` / `%paddle_graph` magics."""
