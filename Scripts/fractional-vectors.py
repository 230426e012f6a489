#!/usr/bin/env python3
"""Generates FractionalKey test vectors from the reference algorithm's Python port.

    python3 -m venv .venv-vectors && .venv-vectors/bin/pip install fractional-indexing==0.1.3
    .venv-vectors/bin/python Scripts/fractional-vectors.py > Tests/OrderKeysTests/Vectors/fractional-indexing.json

The output is committed as data; the tests do not need Python.
"""
import json
import random

from fractional_indexing import generate_key_between, generate_n_keys_between

rng = random.Random(20261122)
cases = []

def between(a, b):
    try:
        cases.append({"a": a, "b": b, "key": generate_key_between(a, b)})
    except Exception as error:  # the reference rejects this pair
        cases.append({"a": a, "b": b, "error": str(error)})

# Fixed cases from the reference's own test list, and edges of the integer part.
for a, b in [(None, None), ("a0", None), ("a1", None), ("az", None), ("b0z", None), ("Zz", None), ("a0", "a1"),
             ("a1", "a2"), ("a0V", "a1"), ("Zz", "a0"), ("Zz", "a1"), (None, "Y00"), ("bzz", None), ("a0", "a0V"),
             ("a0", "a0G"), ("b125", "b129"), ("a0", "a1V"), ("Zz", "a01"), (None, "a0V"), (None, "b999"),
             (None, "A00000000000000000000000000"), (None, "A000000000000000000000000001"),
             ("zzzzzzzzzzzzzzzzzzzzzzzzzzy", None), ("zzzzzzzzzzzzzzzzzzzzzzzzzzz", None),
             ("a00", None), ("a00", "a1"), ("0", "1"), ("a1", "a0"), ("a0", "a0")]:
    between(a, b)

# Random walks: repeated inserts at the front, the back, after the first key and in between.
keys = [generate_key_between(None, None)]
for step in range(1500):
    choice = rng.randrange(4)
    if choice == 0:
        a, b = None, keys[0]
    elif choice == 1:
        a, b = keys[-1], None
    elif choice == 2:
        a, b = keys[0], keys[1] if len(keys) > 1 else None
    else:
        i = rng.randrange(len(keys))
        a, b = keys[i], keys[i + 1] if i + 1 < len(keys) else None
    key = generate_key_between(a, b)
    cases.append({"a": a, "b": b, "key": key})
    keys.append(key)
    keys.sort()

n_cases = []
for a, b, n in [(None, None, 5), ("a0", None, 10), (None, "a0", 10), ("a0", "a1", 7), ("a0", "a0V", 30), ("Zz", "a01", 3),
                (None, None, 0), ("a1", "a2", 1)]:
    n_cases.append({"a": a, "b": b, "n": n, "keys": generate_n_keys_between(a, b, n)})

print(json.dumps({"reference": "fractional-indexing 0.1.3 (PyPI port of rocicorp/fractional-indexing)",
                  "between": cases, "nBetween": n_cases}, indent=0))
