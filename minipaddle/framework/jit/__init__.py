"""Dynamic-to-static: convert eager code to a static Program (to_static), run it, save and load it."""
