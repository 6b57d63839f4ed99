"""The hostile-input set: one test per defect found by trying the tool as a careless or hostile
user would (issue 31), kept apart so the set can grow.  The batch test doubles are in
tests/support.py."""
